import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll } from 'vitest';
import { OAUTH_STATE_COOKIE } from '../../src/modules/auth/oauth-routes.ts';
import {
  addMember,
  invite,
  type MailingTestApp,
  team,
} from '../../src/modules/organizations/test-support.ts';
import { buildTestApp } from './app.ts';
import { type SignedUpUser, signUpUser } from './factories.ts';
import { waitForKnowledge } from './knowledge.ts';
import { fileForm, SPEECH } from './media.ts';
import { githubIdentity, googleIdentity, type OAuthServer, startOAuthServer } from './oauth-server.ts';
import type { Method } from './requests.ts';
import { startSmtpServer } from './smtp.ts';

/**
 * Fixtures of the authorization matrix (test/authorization-matrix.test.ts): organization A with an
 * owner, an admin, a member and a viewer who joined through the API's invitations, holding one of
 * everything; an outsider who owns organization B; and factories for a fresh object per cell of
 * the operations that destroy or consume what they address.
 *
 * Everything in A is made by its owner, so that "its author or an admin" rules are exercised both
 * ways: the admin may change what the owner made, the member (not its author) may not.
 */

export type MatrixApp = MailingTestApp & { oauth: OAuthServer };

/** The app, with real SMTP (invitation and reset tokens travel only by mail) and a local OAuth server. */
export function useMatrixApp(): () => MatrixApp {
  let testApp: MatrixApp | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    const smtp = await startSmtpServer();
    closers.push(() => smtp.close());
    const oauth = await startOAuthServer();
    closers.push(() => oauth.close());
    // One account at each provider: the first callback creates its user, the next ones sign it in.
    oauth.setIdentity('github', githubIdentity());
    oauth.setIdentity('google', googleIdentity());
    const built = await buildTestApp({
      // Hundreds of requests per credential in a few seconds: the rate limit is not what is measured.
      // Nor are the free plan's seats: A takes more members and invitations than it allows.
      env: {
        SMTP_URL: smtp.url,
        RATE_LIMIT_PER_MINUTE: '1000000',
        FREE_PLAN_SEATS: '1000',
        // Webhooks of A point at a closed loopback port: deliveries fail quietly and stay listed.
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        ...oauth.env,
      },
    });
    closers.unshift(() => built.close());
    testApp = Object.assign(built, { smtp, oauth });
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });
  return () => {
    if (!testApp) throw new Error('useMatrixApp: the app is not built yet (use it inside a test)');
    return testApp;
  };
}

const unique = () => randomBytes(4).toString('hex');
/** No credentials: for the public routes the fixtures go through. */
const ANONYMOUS = { headers: {} };

/** A JSON request as `user` that must succeed: fixtures are arranged, not tested. */
async function call<T = Record<string, unknown>>(
  testApp: MatrixApp,
  user: SignedUpUser | { headers: Record<string, string> },
  method: Method,
  url: string,
  payload?: object,
): Promise<T> {
  const response = await testApp.app.inject({
    method,
    url,
    headers: user.headers,
    ...(payload ? { payload } : {}),
  });
  if (response.statusCode >= 300) {
    throw new Error(`fixture ${method} ${url} failed: ${response.statusCode} ${response.body}`);
  }
  return response.json() as T;
}

type Id = { id: string };

/** A real meeting (of the seed data), so that extraction finds speakers, decisions and topics. */
const MEETING = readFileSync(
  new URL('../../scripts/seed/meetings/weekly-sync-1.txt', import.meta.url),
  'utf8',
);
const SHARE_PASSWORD = 'open sesame 42';
/** Nothing listens on the discard port: deliveries to it fail at once. */
const INTEGRATION_URL = 'http://127.0.0.1:9/hook';

export type Fixtures = Awaited<ReturnType<typeof buildFixtures>>;

/** Organization A holding one of everything, its people, and organization B's owner. */
export async function buildFixtures(testApp: MatrixApp) {
  const { organizationId, owner, admin, member, viewer, outsider } = await team(testApp);
  // `host` owns a side organization (invitations to accept) and is the account anonymous signs in as.
  const host = await signUpUser(testApp.app, { name: 'Hal Host' });
  // `bystander` is a member of A whose role the role-change cells set (never a principal's own).
  const bystander = await addMember(testApp, organizationId, owner, 'member');
  const as = (user: SignedUpUser) => ({
    get: <T = Record<string, unknown>>(url: string) => call<T>(testApp, user, 'GET', url),
    post: <T = Id>(url: string, payload: object = {}) => call<T>(testApp, user, 'POST', url, payload),
    patch: <T = Id>(url: string, payload: object) => call<T>(testApp, user, 'PATCH', url, payload),
    delete: <T = Id>(url: string) => call<T>(testApp, user, 'DELETE', url),
  });
  const byOwner = as(owner);

  const channel = await byOwner.post('/channels', { organizationId, name: 'Product' });
  const series = await byOwner.post('/series', { organizationId, name: 'Weekly product sync' });
  const collection = await byOwner.post('/collections', {
    organizationId,
    name: 'Start here',
    type: 'playlist',
  });
  const video = await byOwner.post('/videos', {
    organizationId,
    title: 'Weekly product sync',
    duration: '25:00',
    transcript: MEETING,
    channelId: channel.id,
    seriesId: series.id,
    collectionId: collection.id,
  });
  const knowledge = await waitForKnowledge(testApp.database.db, video.id);
  if (knowledge.status !== 'ready') throw new Error(`knowledge extraction ended ${knowledge.status}`);
  const [topic] = (await byOwner.get<{ data: Id[] }>(`/topics?organizationId=${organizationId}`)).data;
  const [speaker] = (await byOwner.get<{ data: Id[] }>(`/speakers?organizationId=${organizationId}`)).data;
  if (!topic || !speaker) throw new Error('the meeting yielded no topic or speaker');

  const clip = await byOwner.post(`/videos/${video.id}/clips`, {
    title: 'Search v2',
    startTime: 0,
    endTime: 30,
  });
  const comment = await byOwner.post(`/videos/${video.id}/comments`, {
    body: 'Decision at the start',
    timestamp: 5,
  });
  const shareLink = await byOwner.post<Id & { token: string }>(`/videos/${video.id}/share-links`, {});
  const passwordShareLink = await byOwner.post<Id & { token: string }>(`/videos/${video.id}/share-links`, {
    password: SHARE_PASSWORD,
  });
  const savedSearch = await byOwner.post('/search/saved', {
    organizationId,
    name: 'Launch',
    query: 'launch',
  });
  const conversation = await byOwner.post('/chat/conversations', { organizationId, title: 'Search v2' });
  const betaRequest = await call<Id>(testApp, ANONYMOUS, 'POST', '/beta-access', {
    email: `beta-${unique()}@example.com`,
  });
  const sideOrganization = await as(host).post('/organizations', { name: 'Side project' });

  /** The owner's newest notification about the comment `commenter` just made on the owner's video. */
  async function notificationOfComment(commenter: SignedUpUser) {
    const made = await as(commenter).post(`/videos/${video.id}/comments`, { body: `Noted ${unique()}` });
    const page = await byOwner.get<{ data: Array<Id & { data: { commentId?: string } }> }>(
      '/notifications?type=comment&limit=100',
    );
    const notification = page.data.find((candidate) => candidate.data.commentId === made.id);
    if (!notification) throw new Error('the comment notified nobody');
    return notification;
  }
  const notification = await notificationOfComment(admin);

  /** The playlist's videos in order, as a reorder must list them. */
  const playlistOrder = async () =>
    (await byOwner.get<{ videos: Id[] }>(`/collections/${collection.id}`)).videos.map((entry) => entry.id);

  /** Factories: a fresh object for each cell of an operation that destroys or uses up its target. */
  const fresh = {
    video: () => byOwner.post('/videos', { organizationId, title: `Scratch ${unique()}`, duration: '1:00' }),
    /** A fresh video holding a stored recording. */
    recording: async () => {
      const made = await fresh.video();
      const form = fileForm(SPEECH, 'speech.wav', 'audio/wav');
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/videos/${made.id}/media`,
        headers: { ...owner.headers, ...form.headers },
        payload: form.payload,
      });
      if (response.statusCode !== 201)
        throw new Error(`upload failed: ${response.statusCode} ${response.body}`);
      return made;
    },
    /** The address of a resumable upload the owner started for a fresh video. */
    upload: async () => {
      const made = await fresh.video();
      const response = await testApp.app.inject({
        method: 'POST',
        url: '/uploads',
        headers: {
          ...owner.headers,
          'tus-resumable': '1.0.0',
          'upload-length': String(SPEECH.length),
          'upload-metadata': `videoId ${Buffer.from(made.id).toString('base64')}`,
        },
      });
      if (response.statusCode !== 201)
        throw new Error(`upload failed: ${response.statusCode} ${response.body}`);
      return response.headers.location as string;
    },
    /** The token of a share link to a fresh video holding a stored recording. */
    sharedRecording: async () => {
      const made = await fresh.recording();
      return (await byOwner.post<Id & { token: string }>(`/videos/${made.id}/share-links`, {})).token;
    },
    /** A video the owner deleted (soft), ready to be restored. */
    deletedVideo: async () => {
      const made = await fresh.video();
      await byOwner.delete(`/videos/${made.id}`);
      return made;
    },
    /** A video in the main playlist, ready to be taken out. */
    videoInCollection: () =>
      byOwner.post('/videos', {
        organizationId,
        title: `Scratch ${unique()}`,
        duration: '1:00',
        collectionId: collection.id,
      }),
    channel: () => byOwner.post('/channels', { organizationId, name: `Channel ${unique()}` }),
    series: () => byOwner.post('/series', { organizationId, name: `Series ${unique()}` }),
    collection: () => byOwner.post('/collections', { organizationId, name: `Folder ${unique()}` }),
    clip: () =>
      byOwner.post(`/videos/${video.id}/clips`, { title: `Clip ${unique()}`, startTime: 0, endTime: 5 }),
    comment: () => byOwner.post(`/videos/${video.id}/comments`, { body: `Comment ${unique()}` }),
    shareLink: () => byOwner.post(`/videos/${video.id}/share-links`, {}),
    savedSearch: () =>
      byOwner.post('/search/saved', { organizationId, name: `Saved ${unique()}`, query: 'reindex' }),
    conversation: () => byOwner.post('/chat/conversations', { organizationId, title: `Chat ${unique()}` }),
    notification: () => notificationOfComment(admin),
    apiKey: () => byOwner.post('/users/me/api-keys', { name: `Key ${unique()}` }),
    webhook: () =>
      byOwner.post('/integrations/webhooks', {
        organizationId,
        url: INTEGRATION_URL,
        events: ['video.created'],
      }),
    slack: () =>
      byOwner.post('/integrations/slack', {
        organizationId,
        webhookUrl: INTEGRATION_URL,
        events: ['digest.weekly'],
      }),
    invitation: () =>
      byOwner.post(`/organizations/${organizationId}/invitations`, {
        email: `invitee-${unique()}@example.com`,
        role: 'member',
      }),
    /** A member of A who joined through an invitation, to be removed. */
    member: () => addMember(testApp, organizationId, owner, 'member'),
    /** A new session of `user` (as a sign-in on another device makes): its token and public id. */
    session: async (user: SignedUpUser) => {
      // From an address of its own, like another device: sign-in attempts are limited per address and email.
      const signedIn = await testApp.app.inject({
        method: 'POST',
        url: '/auth/sign-in',
        payload: { email: user.email, password: user.password },
        remoteAddress: `203.0.113.${1 + ((randomBytes(1)[0] ?? 0) % 250)}`,
      });
      if (signedIn.statusCode !== 200)
        throw new Error(`sign-in failed: ${signedIn.statusCode} ${signedIn.body}`);
      const token = signedIn.json().data.session.sessionId as string;
      const sessions = await call<{ data: Array<Id & { current: boolean }> }>(
        testApp,
        { headers: { authorization: `Bearer ${token}` } },
        'GET',
        '/users/me/sessions',
      );
      const current = sessions.data.find((session) => session.current);
      if (!current) throw new Error('the new session is not listed as current');
      return { token, id: current.id };
    },
    /** An entry of the owner's search history (written after the search answers, hence the wait). */
    searchHistoryEntry: async () => {
      const query = `reindex ${unique()}`;
      await byOwner.get(`/search?q=${encodeURIComponent(query)}&organizationId=${organizationId}`);
      for (let attempt = 0; attempt < 100; attempt++) {
        const history = await byOwner.get<{ data: Array<Id & { query: string }> }>(
          '/search/history?limit=100',
        );
        const entry = history.data.find((candidate) => candidate.query === query);
        if (entry) return entry;
        await sleep(20);
      }
      throw new Error('the search was not recorded in the history');
    },
    /** The token of an invitation to the side organization, sent to `email`. */
    invitationToken: async (email: string) =>
      (await invite(testApp, sideOrganization.id, host, email, 'viewer')).token,
    /** A password reset token of a throwaway account (confirming it signs that account out). */
    resetToken: async () => {
      const account = await signUpUser(testApp.app);
      await call(testApp, ANONYMOUS, 'POST', '/auth/reset-password', { email: account.email });
      const mail = await testApp.smtp.waitForMail(account.email);
      const token = /token=([\w-]+)/.exec(mail.text)?.[1];
      if (!token) throw new Error(`no reset token in: ${mail.text}`);
      return token;
    },
    /** The provider's redirect back to us, as the browser follows it: callback URL and state cookie. */
    oauthCallback: async (provider: 'github' | 'google') => {
      const started = await testApp.app.inject({ method: 'GET', url: `/auth/${provider}` });
      const stateCookie = ([] as string[])
        .concat(started.headers['set-cookie'] ?? [])
        .find((header) => header.startsWith(`${OAUTH_STATE_COOKIE}=`))
        ?.split(';')[0];
      if (started.statusCode !== 302 || !stateCookie) throw new Error(`/auth/${provider} did not redirect`);
      const atProvider = await fetch(started.headers.location as string, { redirect: 'manual' });
      const back = new URL(atProvider.headers.get('location') as string);
      return { url: `${back.pathname}${back.search}`, cookie: stateCookie };
    },
  };

  // Billing of A: a checkout and a portal visit opened by its owner. Their pages take no account
  // (the signed link is the credential); `subscribed` confirms the checkout once, for the cells
  // that need a paid subscription, and answers the path of its invoice's printable page.
  const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
  const checkoutPath = pathOf(
    (await byOwner.post<{ url: string }>('/billing/checkout', { organizationId, planId: 'pro', seats: 200 }))
      .url,
  );
  const portalPath = pathOf((await byOwner.post<{ url: string }>('/billing/portal', { organizationId })).url);
  let subscription: Promise<string> | undefined;
  const subscribed = () => {
    subscription ??= (async () => {
      const confirmed = await testApp.app.inject({ method: 'POST', url: checkoutPath });
      if (confirmed.statusCode !== 303) throw new Error(`checkout confirmation failed: ${confirmed.body}`);
      const invoices = await byOwner.get<{ data: Array<{ url: string }> }>(
        `/billing/invoices?organizationId=${organizationId}`,
      );
      return pathOf((invoices.data[0] as { url: string }).url);
    })();
    return subscription;
  };

  // Integrations of A: a webhook with one delivery (of a video made after it) and a Slack channel.
  const webhook = await byOwner.post('/integrations/webhooks', {
    organizationId,
    url: INTEGRATION_URL,
    events: ['video.created'],
  });
  const slack = await byOwner.post('/integrations/slack', {
    organizationId,
    webhookUrl: INTEGRATION_URL,
    events: ['digest.weekly'],
  });
  await fresh.video();
  const deliveries = await byOwner.get<{ data: Id[] }>(`/integrations/webhooks/${webhook.id}/deliveries`);
  const deliveryId = deliveries.data[0]?.id;
  if (!deliveryId) throw new Error('the webhook got no delivery');
  const importForm = new FormData();
  importForm.append('organizationId', organizationId);
  importForm.append('files', new Blob(['Maya Chen: An imported meeting.']), 'imported.txt');
  const importRequest = new Request('http://localhost/', { method: 'POST', body: importForm });
  const imported = await testApp.app.inject({
    method: 'POST',
    url: '/integrations/import',
    headers: { ...owner.headers, 'content-type': importRequest.headers.get('content-type') as string },
    payload: Buffer.from(await importRequest.arrayBuffer()),
  });
  if (imported.statusCode !== 202) throw new Error(`fixture import failed: ${imported.body}`);

  return {
    organizationId,
    people: { owner, admin, member, viewer, outsider },
    billing: { checkoutPath, portalPath, subscribed },
    integrations: {
      url: INTEGRATION_URL,
      webhook,
      slack,
      deliveryId,
      importId: imported.json().id as string,
    },
    host,
    bystander,
    sideOrganizationId: sideOrganization.id,
    video,
    topic,
    speaker,
    channel,
    series,
    collection,
    clip,
    comment,
    shareLink,
    passwordShareLink: { ...passwordShareLink, password: SHARE_PASSWORD },
    savedSearch,
    conversation,
    notification,
    betaRequest,
    playlistOrder,
    fresh,
  };
}
