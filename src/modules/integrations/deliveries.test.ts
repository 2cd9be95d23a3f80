import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { waitForKnowledge } from '../../../test/helpers/knowledge.ts';
import { integrationDeliveries, integrations } from '../../db/schema/index.ts';
import { sealSecret } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import { addMember, team, useMailingTestApp } from '../organizations/test-support.ts';
import { deliverDue, removeOldDeliveries } from './deliveries.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from './test-support.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Checks `x-khub-signature` the way docs/integrations.md tells receivers to. */
function verifySignature(request: ReceivedRequest, secret: string) {
  const header = String(request.headers['x-khub-signature']);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest('hex');
  return expected === match[2];
}

/** The verification snippet of docs/integrations.md, loaded as a module: what receivers are told to run. */
async function documentedVerifier() {
  const doc = readFileSync(new URL('../../../docs/integrations.md', import.meta.url), 'utf8');
  const snippet = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!snippet) throw new Error('no js snippet in docs/integrations.md');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kh-verify-')), 'verify.mjs');
  writeFileSync(file, snippet);
  const module = await import(file);
  return module.verifyKnowledgeHubSignature as (body: string, header: string, secret: string) => boolean;
}

const sweep = (testApp: TestApp) =>
  deliverDue({
    config: testApp.config,
    db: testApp.database.db,
    clock: testApp.clock,
    jobs: testApp.jobs,
    logger: testApp.app.log,
  });

async function deliveryRows(testApp: TestApp, integrationId: string) {
  return testApp.database.db
    .select()
    .from(integrationDeliveries)
    .where(eq(integrationDeliveries.integrationId, integrationId))
    .orderBy(integrationDeliveries.createdAt);
}

/** Sweeps (as the job would) until the webhook's deliveries satisfy `done`. */
async function sweepUntil(
  testApp: TestApp,
  integrationId: string,
  done: (rows: Awaited<ReturnType<typeof deliveryRows>>) => boolean,
) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await sweep(testApp);
    const rows = await deliveryRows(testApp, integrationId);
    if (done(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`deliveries never settled: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhook deliveries', () => {
  const ctx = useMailingTestApp({ WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '400' });
  let crew: Awaited<ReturnType<typeof team>>;
  let receiver: Receiver;

  beforeAll(async () => {
    crew = await team(ctx());
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());
  afterEach(() => {
    ctx().clock.reset();
    receiver.reset();
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    user = crew.admin,
  ) => ctx().app.inject({ method, url, headers: user.headers, ...(payload ? { payload } : {}) });

  async function addWebhook(events: string[], path = '/hook') {
    const response = await call('POST', '/integrations/webhooks', {
      organizationId: crew.organizationId,
      url: `${receiver.url}${path}`,
      events,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; secret: string };
  }

  async function postVideo(title: string, extra: object = {}) {
    const response = await call(
      'POST',
      '/videos',
      { organizationId: crew.organizationId, title, duration: '1:00', ...extra },
      crew.member,
    );
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string };
  }

  it('signs each event, sends it once, and records the delivery', async () => {
    const webhook = await addWebhook(['video.created'], '/signed');
    const video = await postVideo('Signed delivery');
    const [request] = await receiver.waitFor(1);
    if (!request) throw new Error('no request');
    expect(request.path).toBe('/signed');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-khub-event']).toBe('video.created');
    expect(verifySignature(request, webhook.secret)).toBe(true);
    expect(verifySignature(request, 'whsec_another')).toBe(false);
    const verify = await documentedVerifier();
    const header = String(request.headers['x-khub-signature']);
    expect(verify(request.body, header, webhook.secret)).toBe(true);
    expect(verify(`${request.body} `, header, webhook.secret)).toBe(false);
    expect(verify(request.body, header.replace(/t=\d+/, 't=1000000000'), webhook.secret)).toBe(false);
    const body = request.json as {
      id: string;
      type: string;
      createdAt: string;
      data: Record<string, unknown>;
    };
    expect(body).toStrictEqual({
      id: expect.any(String),
      type: 'video.created',
      createdAt: expect.any(String),
      data: {
        object: 'video',
        id: video.id,
        title: 'Signed delivery',
        organizationId: crew.organizationId,
        actorId: crew.member.id,
      },
    });

    const listed = await call('GET', `/integrations/webhooks/${webhook.id}/deliveries`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data).toStrictEqual([
      expect.objectContaining({
        id: request.headers['x-khub-delivery'],
        eventId: body.id,
        eventType: 'video.created',
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        payload: body,
      }),
    ]);
    // Nothing else goes out for it, however often the job runs.
    await sweep(ctx());
    expect(receiver.received).toHaveLength(1);
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('sends each event a webhook subscribes to, and no others', async () => {
    const events = [
      'video.updated',
      'transcript.ready',
      'knowledge.extracted',
      'comment.created',
      'clip.created',
      'video.deleted',
    ];
    const webhook = await addWebhook(events, '/many');
    const video = await postVideo('Many events');
    await call('PATCH', `/videos/${video.id}`, { title: 'Many events, renamed' }, crew.member);
    const transcript = await call(
      'PUT',
      `/videos/${video.id}/transcript`,
      { text: 'Alice: We ship on Friday.\nBob: Agreed.' },
      crew.member,
    );
    expect(transcript.statusCode, transcript.body).toBe(200);
    await waitForKnowledge(ctx().database.db, video.id);
    for (const [method, url, payload] of [
      ['POST', `/videos/${video.id}/comments`, { body: 'Nice' }],
      ['POST', `/videos/${video.id}/clips`, { title: 'Intro', startTime: 0, endTime: 5 }],
      // Not subscribed: no delivery.
      ['POST', '/channels', { organizationId: crew.organizationId, name: 'Unheard' }],
      ['DELETE', `/videos/${video.id}`, undefined],
    ] as const) {
      const response = await call(method, url, payload, crew.member);
      expect(response.statusCode, response.body).toBeLessThan(300);
    }
    const requests = await receiver.waitFor(6);
    await sweep(ctx());
    expect(requests).toHaveLength(6);
    const types = requests.map((request) => (request.json as { type: string }).type).sort();
    expect(types).toStrictEqual([...events].sort());
    for (const request of requests) expect(verifySignature(request, webhook.secret)).toBe(true);
    const ids = requests.map((request) => (request.json as { id: string }).id);
    expect(new Set(ids).size).toBe(6);
    const extracted = requests.find(
      (request) => (request.json as { type: string }).type === 'knowledge.extracted',
    );
    expect(extracted?.json).toMatchObject({
      data: { object: 'video', id: video.id, decisions: expect.any(Number), actionItems: expect.any(Number) },
    });
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('tells of members joining and leaving', async () => {
    const webhook = await addWebhook(['member.joined', 'member.left'], '/members');
    const joined = await addMember(ctx(), crew.organizationId, crew.owner, 'viewer');
    const removed = await call(
      'DELETE',
      `/organizations/${crew.organizationId}/members/${joined.id}`,
      undefined,
      crew.owner,
    );
    expect(removed.statusCode, removed.body).toBe(200);
    const requests = await receiver.waitFor(2);
    const bodies = requests.map((request) => request.json as { type: string; data: Record<string, unknown> });
    expect(bodies.map((body) => body.type).sort()).toStrictEqual(['member.joined', 'member.left']);
    expect(bodies.find((body) => body.type === 'member.joined')?.data).toMatchObject({
      object: 'user',
      id: joined.id,
      invitationId: expect.any(String),
      actorId: joined.id,
      role: 'viewer',
    });
    expect(bodies.find((body) => body.type === 'member.left')?.data).toMatchObject({
      object: 'user',
      id: joined.id,
      actorId: crew.owner.id,
    });
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('retries a 500 and a timeout with backoff, then delivers with the same event id', async () => {
    const webhook = await addWebhook(['video.created'], '/flaky');
    receiver.answerNext({ status: 500, body: 'boom' }, { status: 200, delayMs: 1500 });
    const started = ctx().clock.now();
    await postVideo('Flaky receiver');

    const [first] = await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 1);
    expect(first).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'HTTP 500: boom' });
    const firstWait = (first?.nextAttemptAt.getTime() ?? 0) - started.getTime();
    expect(firstWait).toBeGreaterThanOrEqual(14_000);
    expect(firstWait).toBeLessThanOrEqual(32_000);

    // Not due yet: the job leaves it alone.
    await sweep(ctx());
    expect(receiver.received).toHaveLength(1);

    ctx().clock.advance(40_000);
    const [second] = await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 2);
    expect(second).toMatchObject({
      status: 'pending',
      lastStatusCode: null,
      lastError: 'no answer within 400 ms',
    });
    const secondWait = (second?.nextAttemptAt.getTime() ?? 0) - (second?.lastAttemptAt?.getTime() ?? 0);
    expect(secondWait).toBeGreaterThanOrEqual(30_000);
    expect(secondWait).toBeLessThanOrEqual(60_000);

    ctx().clock.advance(70_000);
    const [third] = await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.status === 'delivered');
    expect(third).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null });
    const bodies = receiver.received.map((request) => request.json as { id: string });
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies.map((body) => body.id))).toStrictEqual(new Set([third?.eventId]));
    for (const request of receiver.received) expect(verifySignature(request, webhook.secret)).toBe(true);
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('gives a delivery up after 24 hours of failures, and a person can send it again', async () => {
    const webhook = await addWebhook(['video.created'], '/down');
    receiver.answerNext({ status: 503 }, { status: 503 });
    await postVideo('Receiver down');
    await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 1);
    ctx().clock.advance(25 * HOUR);
    const [given] = await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.status === 'failed');
    expect(given).toMatchObject({ attempts: 2, lastStatusCode: 503 });

    const retried = await call('POST', `/integrations/webhooks/${webhook.id}/deliveries/${given?.id}/retry`);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json()).toMatchObject({ id: given?.id, status: 'pending', eventId: given?.eventId });
    const [redelivered] = await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.status === 'delivered');
    expect(redelivered).toMatchObject({ attempts: 3, lastStatusCode: 200 });
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('disables a webhook that failed for three days and tells the admins and owners', async () => {
    const webhook = await addWebhook(['video.created'], '/dead');
    receiver.answerNext(...Array.from({ length: 40 }, () => ({ status: 500 })));
    await postVideo('Dead receiver 0');
    await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 1);
    const failing = (await call('GET', `/integrations/webhooks/${webhook.id}`)).json();
    expect(failing).toMatchObject({ enabled: true, failingSince: expect.any(String) });

    // Events keep coming and keep failing: a day apart, each within the previous one's retry window.
    for (const day of [1, 2, 3]) {
      ctx().clock.advance(20 * HOUR);
      await postVideo(`Dead receiver ${day}`);
      await sweepUntil(
        ctx(),
        webhook.id,
        (rows) => rows.length === day + 1 && (rows.at(-1)?.attempts ?? 0) >= 1,
      );
      const state = (await call('GET', `/integrations/webhooks/${webhook.id}`)).json();
      // The run started with the first failure; it is three days long only after the third day.
      expect(state.failingSince).toBe(failing.failingSince);
      expect(state.enabled).toBe(day < 3 ? true : state.enabled);
    }
    ctx().clock.advance(13 * HOUR);
    await postVideo('Dead receiver 4');
    await sweepUntil(ctx(), webhook.id, (rows) => rows.every((row) => row.status === 'failed'));
    const disabled = (await call('GET', `/integrations/webhooks/${webhook.id}`)).json();
    expect(disabled).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('three days') });

    for (const user of [crew.owner, crew.admin]) {
      const notifications = (await call('GET', '/notifications', undefined, user)).json().data;
      expect(notifications).toContainEqual(
        expect.objectContaining({ type: 'integration', title: 'Webhook disabled', targetId: webhook.id }),
      );
    }
    const memberNotifications = (await call('GET', '/notifications', undefined, crew.member)).json().data;
    expect(memberNotifications.filter((item: { type: string }) => item.type === 'integration')).toStrictEqual(
      [],
    );

    const [delivery] = await deliveryRows(ctx(), webhook.id);
    const refused = await call(
      'POST',
      `/integrations/webhooks/${webhook.id}/deliveries/${delivery?.id}/retry`,
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('INTEGRATION_DISABLED');
    // A disabled webhook gets nothing new.
    const before = receiver.received.length;
    await postVideo('While disabled');
    await sweep(ctx());
    expect(receiver.received).toHaveLength(before);

    const enabled = await call('PATCH', `/integrations/webhooks/${webhook.id}`, { enabled: true });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('starts a new run of failures when the last failure is older than a retry window', async () => {
    const webhook = await addWebhook(['video.created'], '/flaky-weekly');
    receiver.answerNext(...Array.from({ length: 20 }, () => ({ status: 502 })));
    await postVideo('Failing once');
    await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 1);
    const first = (await call('GET', `/integrations/webhooks/${webhook.id}`)).json().failingSince;
    // A quiet week later, one failure: not "failing for a week".
    ctx().clock.advance(7 * DAY);
    await postVideo('Failing again');
    const weekLater = Date.parse(first) + 6 * DAY;
    await sweepUntil(
      ctx(),
      webhook.id,
      (rows) => rows.length === 2 && rows.every((row) => (row.lastAttemptAt?.getTime() ?? 0) > weekLater),
    );
    const state = (await call('GET', `/integrations/webhooks/${webhook.id}`)).json();
    expect(state.enabled).toBe(true);
    expect(Date.parse(state.failingSince)).toBeGreaterThan(Date.parse(first) + 6 * DAY);
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });

  it('removes finished deliveries after 30 days and keeps pending ones', async () => {
    const webhook = await addWebhook(['video.created'], '/kept');
    receiver.answerNext({ status: 500 });
    await postVideo('Pending for long');
    await sweepUntil(ctx(), webhook.id, (rows) => rows[0]?.attempts === 1);
    await postVideo('Delivered long ago');
    await sweepUntil(ctx(), webhook.id, (rows) => rows.some((row) => row.status === 'delivered'));
    const db = ctx().database.db;
    expect(await removeOldDeliveries(db, ctx().clock.now())).toBe(0);
    ctx().clock.advance(31 * DAY);
    expect(await removeOldDeliveries(db, ctx().clock.now())).toBeGreaterThanOrEqual(1);
    const left = await deliveryRows(ctx(), webhook.id);
    expect(left.map((row) => row.status)).toStrictEqual(['pending']);
    await call('DELETE', `/integrations/webhooks/${webhook.id}`);
  });
});

describe('the outbox across a restart', () => {
  it('sends, when the next instance starts, what was committed while none was running', async () => {
    const receiver = await startReceiver();
    const env = { WEBHOOKS_ALLOW_PRIVATE: 'true' };
    const first = await buildTestApp({ env });
    let second: TestApp | undefined;
    try {
      const owner = await signUpUser(first.app);
      const created = await first.app.inject({
        method: 'POST',
        url: '/integrations/webhooks',
        headers: owner.headers,
        payload: {
          organizationId: owner.organizationId,
          url: `${receiver.url}/restart`,
          events: ['video.created'],
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      // The instance stops working (its queue and its listener): what commits now waits in the outbox.
      await first.jobs.stop(1000);
      await first.app.close();
      const videoId = '01936c2e-7b1a-7c3d-9e4f-0a1b2c3d4e5f';
      await first.database.db.transaction((tx) =>
        recordActivity(tx, {
          organizationId: owner.organizationId,
          actorId: owner.id,
          action: 'video.created',
          targetType: 'video',
          targetId: videoId,
          metadata: { title: 'Committed before the crash' },
        }),
      );
      const [pending] = await first.database.db.select().from(integrationDeliveries);
      expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

      second = await buildTestApp({ env, databaseUrl: first.databaseUrl });
      // Started, as listen() starts it.
      await second.app.ready();
      const [request] = await receiver.waitFor(1);
      expect(request?.json).toMatchObject({ id: pending?.eventId, data: { id: videoId } });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await second?.close();
      await first.close().catch(() => {});
      await receiver.close();
    }
  });
});

/**
 * A webhook row as the service would have stored it, bypassing the checks made when one is saved
 * (a URL that resolved elsewhere then, a secret sealed under another SECRET), and the first failed
 * attempt of a video.created delivery to it.
 */
async function firstAttemptTo(
  testApp: TestApp,
  values: { url: string; sealedSecret: string },
  title: string,
) {
  const owner = await signUpUser(testApp.app);
  const [integration] = await testApp.database.db
    .insert(integrations)
    .values({
      organizationId: owner.organizationId,
      kind: 'webhook',
      displayUrl: values.url,
      events: ['video.created'],
      ...values,
    })
    .returning();
  const created = await testApp.app.inject({
    method: 'POST',
    url: '/videos',
    headers: owner.headers,
    payload: { organizationId: owner.organizationId, title, duration: '1:00' },
  });
  expect(created.statusCode).toBe(201);
  const [row] = await sweepUntil(testApp, integration?.id as string, (rows) => rows[0]?.attempts === 1);
  expect(row).toMatchObject({ status: 'pending', lastStatusCode: null });
  return row;
}

describe('private addresses at delivery time', () => {
  let testApp: TestApp;
  let receiver: Receiver;

  beforeAll(async () => {
    testApp = await buildTestApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await testApp.close();
    await receiver.close();
  });

  it.each([
    ['an address', (port: string) => `http://127.0.0.1:${port}/x`, '127.0.0.1 is not a public address'],
    ['a name', (port: string) => `http://localhost:${port}/x`, 'localhost resolves to a non-public address'],
  ])('refuses a webhook whose host is now %s on the loopback (DNS rebinding)', async (_label, url, error) => {
    const port = new URL(receiver.url).port;
    const row = await firstAttemptTo(
      testApp,
      { url: url(port), sealedSecret: sealSecret(testApp.config.secret, 'whsec_test') },
      'Rebound',
    );
    expect(row?.lastError).toContain(error);
    expect(receiver.received).toHaveLength(0);
  });

  it('fails, and keeps retrying, a delivery whose secret was sealed under another SECRET', async () => {
    const row = await firstAttemptTo(
      testApp,
      {
        url: 'https://8.8.8.8/x',
        sealedSecret: sealSecret('a-secret-of-another-deployment-0123456789', 'whsec_test'),
      },
      'Old secret',
    );
    expect(row?.lastError).toContain('the stored secret cannot be read');
  });
});
