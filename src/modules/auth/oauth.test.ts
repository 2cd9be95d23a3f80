import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, useTestApp } from '../../../test/helpers/app.ts';
import { cookieHeader, cookiesOf, signUpUser } from '../../../test/helpers/factories.ts';
import {
  githubIdentity,
  googleIdentity,
  OAUTH_CLIENTS,
  type OAuthServer,
  startOAuthServer,
} from '../../../test/helpers/oauth-server.ts';
import { activityEvents, memberships, oauthAccounts, users } from '../../db/schema/index.ts';
import { OAUTH_STATE_COOKIE } from './oauth-routes.ts';

const APP_URL = 'http://localhost:3000';
const MINUTE = 60_000;

function setCookieHeader(response: LightMyRequestResponse, name: string): string | undefined {
  return ([] as string[])
    .concat(response.headers['set-cookie'] ?? [])
    .find((candidate) => candidate.startsWith(`${name}=`));
}

/** `name=value` exactly as the Set-Cookie header carries it (the signed state is URL-encoded JSON). */
function rawCookie(response: LightMyRequestResponse, name: string): string {
  const header = setCookieHeader(response, name);
  if (!header) throw new Error(`no ${name} cookie set`);
  return header.split(';')[0] as string;
}

describe('OAuth sign-in against a local OAuth 2 server', () => {
  let oauth: OAuthServer;
  let testApp: TestApp;

  beforeAll(async () => {
    oauth = await startOAuthServer();
    testApp = await buildTestApp({ env: { ...oauth.env, APP_URL } });
  });
  afterAll(async () => {
    await testApp?.close();
    await oauth?.close();
  });
  afterEach(() => testApp.clock.reset());

  /** GET /auth/<provider>: the provider URL it redirects to and the state cookie it sets. */
  async function start(provider: 'github' | 'google') {
    const response = await testApp.app.inject({ method: 'GET', url: `/auth/${provider}` });
    expect(response.statusCode).toBe(302);
    return {
      response,
      location: new URL(response.headers.location as string),
      cookie: rawCookie(response, OAUTH_STATE_COOKIE),
    };
  }

  /** The browser at the provider: where the authorize page sends it back. */
  async function authorize(location: URL): Promise<URL> {
    const response = await fetch(location, { redirect: 'manual' });
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') as string);
  }

  const callback = (back: URL, cookie?: string) =>
    testApp.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      headers: cookie ? { cookie } : {},
    });

  /** The whole redirect dance; returns our callback's response. */
  async function signInWith(provider: 'github' | 'google') {
    const started = await start(provider);
    return callback(await authorize(started.location), started.cookie);
  }

  async function sessionUser(response: LightMyRequestResponse) {
    const cookies = cookiesOf(response);
    const session = await testApp.app.inject({
      method: 'GET',
      url: '/auth/session',
      headers: {
        cookie: cookieHeader({ 'svc-auth.session_token': cookies['svc-auth.session_token'] as string }),
      },
    });
    expect(session.statusCode).toBe(200);
    return session.json().data.user;
  }

  const linksOf = (provider: string, providerAccountId: string) =>
    testApp.database.db
      .select({ userId: oauthAccounts.userId, email: oauthAccounts.email })
      .from(oauthAccounts)
      .where(
        and(eq(oauthAccounts.provider, provider), eq(oauthAccounts.providerAccountId, providerAccountId)),
      );

  const usersWithEmail = (email: string) =>
    testApp.database.db
      .select({ id: users.id, passwordHash: users.passwordHash, emailVerifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.email, email));

  const expectError = (response: LightMyRequestResponse, status: number, code: string) => {
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ success: false, error: expect.any(String), code });
    expect(setCookieHeader(response, 'svc-auth.session_token')).toBeUndefined();
  };

  it('GET /auth/github redirects to the authorize page, keeping the state in a signed cookie', async () => {
    const { response, location, cookie } = await start('github');
    expect(`${location.origin}${location.pathname}`).toBe(`${oauth.url}/github/authorize`);
    const state = location.searchParams.get('state') as string;
    expect(Object.fromEntries(location.searchParams)).toEqual({
      response_type: 'code',
      client_id: OAUTH_CLIENTS.github.id,
      redirect_uri: `${APP_URL}/auth/github/callback`,
      scope: 'read:user user:email',
      state,
    });
    expect(state.length).toBeGreaterThanOrEqual(32);

    const header = setCookieHeader(response, OAUTH_STATE_COOKIE) as string;
    expect(header).toMatch(/; Max-Age=600(;|$)/);
    expect(header).toMatch(/; Path=\/auth\/github(;|$)/);
    expect(header).toMatch(/; HttpOnly(;|$)/);
    expect(header).toMatch(/; SameSite=Lax(;|$)/);
    // Signed: `<value>.<signature>`, so the client cannot forge or edit it.
    expect(decodeURIComponent(cookie)).toMatch(/\}\.[\w+/-]{20,}={0,2}$/);
  });

  it('GET /auth/google redirects with a PKCE S256 challenge and OpenID scopes', async () => {
    const { location } = await start('google');
    expect(`${location.origin}${location.pathname}`).toBe(`${oauth.url}/google/authorize`);
    expect(location.searchParams.get('client_id')).toBe(OAUTH_CLIENTS.google.id);
    expect(location.searchParams.get('redirect_uri')).toBe(`${APP_URL}/auth/google/callback`);
    expect(location.searchParams.get('scope')).toBe('openid email profile');
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
  });

  it('creates the user on a first GitHub sign-in, opens a session and redirects to the app', async () => {
    oauth.setIdentity('github', githubIdentity());
    const response = await signInWith('github');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(APP_URL);
    expect(setCookieHeader(response, 'svc-auth.session_token')).toMatch(/HttpOnly/);
    expect(setCookieHeader(response, 'svc-auth.csrf_token')).toBeDefined();
    // The state is spent: its cookie is cleared.
    expect(setCookieHeader(response, OAUTH_STATE_COOKIE)).toMatch(/Expires=Thu, 01 Jan 1970/);

    const user = await sessionUser(response);
    expect(user).toMatchObject({
      email: 'mona@example.com',
      name: 'Mona Octocat',
      avatarUrl: 'https://avatars.example.com/u/1001',
      defaultOrganizationId: expect.any(String),
    });
    const [row] = await usersWithEmail('mona@example.com');
    expect(row?.passwordHash).toBeNull();
    expect(row?.emailVerifiedAt).toBeInstanceOf(Date);
    expect(await linksOf('github', '1001')).toEqual([{ userId: user.id, email: 'mona@example.com' }]);
    const [membership] = await testApp.database.db
      .select({ role: memberships.role })
      .from(memberships)
      .where(
        and(eq(memberships.userId, user.id), eq(memberships.organizationId, user.defaultOrganizationId)),
      );
    expect(membership?.role).toBe('owner');

    // No password was set, so none works.
    const signIn = await testApp.app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: 'mona@example.com', password: 'any password at all' },
    });
    expect(signIn.statusCode).toBe(401);
    expect(signIn.json().error).toBe('Invalid credentials');
  });

  it('signs the linked user in again, even after their email changed at the provider', async () => {
    oauth.setIdentity(
      'github',
      githubIdentity({
        id: 2002,
        login: 'repeat',
        emails: [{ email: 'repeat@example.com', primary: true, verified: true }],
      }),
    );
    const first = await sessionUser(await signInWith('github'));

    oauth.setIdentity(
      'github',
      githubIdentity({
        id: 2002,
        login: 'repeat',
        emails: [{ email: 'renamed@example.com', primary: true, verified: true }],
      }),
    );
    const second = await signInWith('github');
    expect(second.statusCode).toBe(302);
    expect((await sessionUser(second)).id).toBe(first.id);
    expect(await usersWithEmail('renamed@example.com')).toEqual([]);
  });

  it('uses the GitHub login as the name when the profile has none', async () => {
    oauth.setIdentity(
      'github',
      githubIdentity({
        id: 2003,
        login: 'nameless',
        name: null,
        avatarUrl: null,
        emails: [{ email: 'nameless@example.com', primary: true, verified: true }],
      }),
    );
    const user = await sessionUser(await signInWith('github'));
    expect(user).toMatchObject({ name: 'nameless', avatarUrl: null });
  });

  it('signs in with Google, proving the PKCE verifier at the token endpoint', async () => {
    oauth.setIdentity('google', googleIdentity());
    const response = await signInWith('google');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(APP_URL);
    expect(await sessionUser(response)).toMatchObject({ email: 'grace@example.com', name: 'Grace Hopper' });

    const exchange = oauth.tokenRequests.findLast((request) => request.provider === 'google');
    expect(exchange?.fields).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: `${APP_URL}/auth/google/callback`,
      code_verifier: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(await linksOf('google', googleIdentity().sub)).toHaveLength(1);
  });

  it('links a Google identity to the password account with the same verified email', async () => {
    const existing = await signUpUser(testApp.app, { email: 'ada@example.com' });
    oauth.setIdentity(
      'google',
      googleIdentity({ sub: 'google-ada', email: 'Ada@Example.com', name: 'Someone Else' }),
    );
    const response = await signInWith('google');
    expect(response.statusCode).toBe(302);

    const user = await sessionUser(response);
    expect(user).toMatchObject({ id: existing.id, name: existing.name });
    expect(await linksOf('google', 'google-ada')).toEqual([
      { userId: existing.id, email: 'ada@example.com' },
    ]);
    expect(
      await testApp.database.db
        .select({
          organizationId: activityEvents.organizationId,
          actorId: activityEvents.actorId,
          targetId: activityEvents.targetId,
          metadata: activityEvents.metadata,
        })
        .from(activityEvents)
        .where(and(eq(activityEvents.action, 'oauth.linked'), eq(activityEvents.actorId, existing.id))),
    ).toEqual([
      { organizationId: null, actorId: existing.id, targetId: existing.id, metadata: { provider: 'google' } },
    ]);
    const rows = await usersWithEmail('ada@example.com');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.emailVerifiedAt).toBeInstanceOf(Date);
    // Nobody had proven they own the address: the password set at sign-up and its sessions may be
    // an attacker's who registered it first, so the verified owner takes the account over.
    const passwordSignIn = await testApp.app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: existing.email, password: existing.password },
    });
    expect(passwordSignIn.statusCode).toBe(401);
    expect(passwordSignIn.json().error).toBe('Invalid credentials');
    const oldSession = await testApp.app.inject({
      method: 'GET',
      url: '/auth/session',
      headers: existing.headers,
    });
    expect(oldSession.statusCode).toBe(401);
  });

  it('keeps the password and sessions of an account whose email was already verified', async () => {
    const existing = await signUpUser(testApp.app, { email: 'grace.verified@example.com' });
    await testApp.database.db
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(eq(users.id, existing.id));
    oauth.setIdentity('google', googleIdentity({ sub: 'google-grace', email: 'grace.verified@example.com' }));
    const response = await signInWith('google');
    expect(response.statusCode).toBe(302);
    expect(await sessionUser(response)).toMatchObject({ id: existing.id });

    const passwordSignIn = await testApp.app.inject({
      method: 'POST',
      url: '/auth/sign-in',
      payload: { email: existing.email, password: existing.password },
    });
    expect(passwordSignIn.statusCode).toBe(200);
    const oldSession = await testApp.app.inject({
      method: 'GET',
      url: '/auth/session',
      headers: existing.headers,
    });
    expect(oldSession.statusCode).toBe(200);
  });

  it('never links an unverified email to an existing account', async () => {
    const existing = await signUpUser(testApp.app, { email: 'victim@example.com' });
    oauth.setIdentity(
      'google',
      googleIdentity({ sub: 'google-attacker', email: 'victim@example.com', emailVerified: false }),
    );
    const response = await signInWith('google');
    expectError(response, 400, 'OAUTH_EMAIL_UNVERIFIED');
    expect(await linksOf('google', 'google-attacker')).toEqual([]);
    const session = await testApp.app.inject({
      method: 'GET',
      url: '/auth/session',
      headers: existing.headers,
    });
    expect(session.json().data.user.id).toBe(existing.id);
  });

  it('refuses a GitHub account without a verified primary email, creating nothing', async () => {
    oauth.setIdentity(
      'github',
      githubIdentity({
        id: 3003,
        emails: [
          { email: 'unverified@example.com', primary: true, verified: false },
          { email: 'side@example.com', primary: false, verified: true },
        ],
      }),
    );
    expectError(await signInWith('github'), 400, 'OAUTH_EMAIL_UNVERIFIED');
    expect(await usersWithEmail('unverified@example.com')).toEqual([]);
    expect(await usersWithEmail('side@example.com')).toEqual([]);
    expect(await linksOf('github', '3003')).toEqual([]);
  });

  it('refuses a callback whose state does not match the cookie', async () => {
    oauth.setIdentity('github', githubIdentity());
    const started = await start('github');
    const back = await authorize(started.location);
    back.searchParams.set('state', 'forged-state-value-from-an-attacker');
    expectError(await callback(back, started.cookie), 400, 'OAUTH_STATE_MISMATCH');
  });

  it('refuses a callback without the state cookie', async () => {
    oauth.setIdentity('github', githubIdentity());
    const back = await authorize((await start('github')).location);
    const response = await callback(back);
    expectError(response, 400, 'OAUTH_STATE_MISMATCH');
    expect(response.json().error).toBe('Invalid or expired sign-in state; start the sign-in again');
  });

  it('refuses a state cookie that was edited, or was issued for the other provider', async () => {
    oauth.setIdentity('github', githubIdentity());
    const started = await start('github');
    const back = await authorize(started.location);
    // The attacker's own state in both the cookie and the query: only the signature stands in the way.
    const [name, value] = started.cookie.split('=') as [string, string];
    const state = back.searchParams.get('state') as string;
    const edited = `${name}=${value.replace(encodeURIComponent(state), 'attacker-state')}`;
    expect(edited).not.toBe(started.cookie);
    const forged = new URL(back);
    forged.searchParams.set('state', 'attacker-state');
    expectError(await callback(forged, edited), 400, 'OAUTH_STATE_MISMATCH');

    const onGoogle = new URL(back);
    onGoogle.pathname = '/auth/google/callback';
    expectError(await callback(onGoogle, started.cookie), 400, 'OAUTH_STATE_MISMATCH');
  });

  it('refuses a state older than 10 minutes', async () => {
    oauth.setIdentity('github', githubIdentity());
    const started = await start('github');
    const back = await authorize(started.location);
    testApp.clock.advance(11 * MINUTE);
    expectError(await callback(back, started.cookie), 400, 'OAUTH_STATE_MISMATCH');
  });

  it('answers 400 OAUTH_DENIED when the user refuses consent', async () => {
    oauth.denyNext();
    const started = await start('google');
    const back = await authorize(started.location);
    expect(back.searchParams.get('error')).toBe('access_denied');
    const response = await callback(back, started.cookie);
    expectError(response, 400, 'OAUTH_DENIED');
    expect(response.json().error).toBe('Sign-in was cancelled at the provider');
  });

  it('answers 400 when the callback carries no code', async () => {
    oauth.setIdentity('github', githubIdentity());
    const started = await start('github');
    const back = await authorize(started.location);
    back.searchParams.delete('code');
    expectError(await callback(back, started.cookie), 400, 'OAUTH_FAILED');
  });

  it('answers 400 when the provider rejects the code (a replayed callback)', async () => {
    oauth.setIdentity('github', githubIdentity());
    const started = await start('github');
    const back = await authorize(started.location);
    expect((await callback(back, started.cookie)).statusCode).toBe(302);
    expectError(await callback(back, started.cookie), 400, 'OAUTH_CODE_REJECTED');
  });

  it('answers 502 when the token or the profile endpoint fails', async () => {
    oauth.setIdentity('google', googleIdentity({ sub: 'google-unlucky', email: 'unlucky@example.com' }));
    oauth.failNextToken(500, { message: 'internal error' });
    const response = await signInWith('google');
    expectError(response, 502, 'OAUTH_PROVIDER_ERROR');
    expect(response.json().error).toBe('The sign-in provider could not be reached or answered unexpectedly');

    oauth.failNextProfile(503);
    expectError(await signInWith('google'), 502, 'OAUTH_PROVIDER_ERROR');
    expect(await usersWithEmail('unlucky@example.com')).toEqual([]);
  });

  it('validates the callback query and lists the failing fields', async () => {
    const response = await testApp.app.inject({
      method: 'GET',
      url: `/auth/github/callback?code=abc&state=${'s'.repeat(2049)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: 'Invalid request',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'querystring.state', message: 'must be at most 2048 characters' }],
    });
  });
});

describe('OAuth providers that are not configured', () => {
  const ctx = useTestApp();

  it.each([
    '/auth/github',
    '/auth/github/callback?code=c&state=s',
    '/auth/google',
    '/auth/google/callback?code=c&state=s',
  ])('GET %s answers 404', async (url) => {
    const response = await ctx().app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ success: false, error: 'Not found', code: 'NOT_FOUND' });
    expect(response.headers.location).toBeUndefined();
  });
});
