import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { signUpUser } from './helpers/factories.ts';

/**
 * Every operation the OpenAPI document marks with bearerAuth must refuse a caller without valid
 * credentials — whatever the route, body or id. The document is the list, so a new route is
 * covered the moment it is documented.
 */

type Operation = { security?: Array<Record<string, unknown>> };

/** Operations that take no credentials (the spec's list plus the operational endpoints). */
const PUBLIC = new Set([
  'GET /health',
  'GET /health/ready',
  'GET /metrics',
  'GET /openapi.json',
  'POST /auth/sign-up',
  'POST /auth/sign-in',
  'POST /auth/reset-password',
  'POST /auth/reset-password/confirm',
  'GET /auth/github',
  'GET /auth/github/callback',
  'GET /auth/google',
  'GET /auth/google/callback',
  'POST /beta-access',
  // The local billing provider's pages (their signed link is the credential) and Stripe's callbacks
  // (the signature is).
  'GET /billing/checkout/{id}',
  'POST /billing/checkout/{id}',
  'GET /billing/portal/{id}',
  'POST /billing/portal/{id}',
  'GET /billing/invoices/{id}/document',
  'POST /billing/webhook',
]);
/** Operations that work without credentials but say who you are when you have some. */
const OPTIONAL = new Set([
  'POST /auth/sign-out',
  'GET /videos/{id}',
  'POST /videos/{id}/views',
  'GET /videos/{id}/transcript',
  'GET /videos/{id}/knowledge',
  'GET /videos/{id}/subtitles.vtt',
  'GET /videos/{id}/subtitles.srt',
  'GET /share/{token}',
  'POST /share/{token}/verify',
  'GET /share/{token}/media',
  'GET /videos/{id}/media',
  'GET /videos/{id}/clips',
  'GET /clips/{id}',
]);

const SOME_ID = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
const DAY = 24 * 3600 * 1000;

describe('authentication on every protected route', () => {
  const ctx = useTestApp();

  async function documentedOperations() {
    const document = (await ctx().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          key: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase() as 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
          url: path.replace(/\{[^}]+\}/g, SOME_ID),
          secured: (operation.security ?? []).some((requirement) => 'bearerAuth' in requirement),
        })),
    );
  }

  it('marks every operation except the public ones with bearerAuth', async () => {
    for (const operation of await documentedOperations()) {
      const expected = !PUBLIC.has(operation.key);
      expect(operation.secured, operation.key).toBe(expected);
    }
  });

  const protectedOperations = async () =>
    (await documentedOperations()).filter((operation) => operation.secured && !OPTIONAL.has(operation.key));

  async function expectAll401(authorization: string | undefined, message: string) {
    const operations = await protectedOperations();
    expect(operations.length).toBeGreaterThan(5);
    for (const operation of operations) {
      const response = await ctx().app.inject({
        method: operation.method,
        url: operation.url,
        headers: authorization ? { authorization } : {},
        ...(['POST', 'PUT', 'PATCH'].includes(operation.method) ? { payload: {} } : {}),
      });
      expect(response.statusCode, operation.key).toBe(401);
      // A HEAD answer has no body; its status says it all.
      if (operation.method === 'HEAD') continue;
      expect(response.json(), operation.key).toMatchObject({ success: false, error: message });
    }
  }

  it('answers 401 without credentials', async () => {
    await expectAll401(undefined, 'Authentication required');
  });

  it('answers 401 with a token that is not a session or key', async () => {
    await expectAll401('Bearer not-a-real-token', 'Invalid session');
    await expectAll401('Bearer khk_not-a-real-key', 'Invalid session');
  });

  it('answers 401 with a revoked session', async () => {
    const user = await signUpUser(ctx().app);
    const signOut = await ctx().app.inject({ method: 'POST', url: '/auth/sign-out', headers: user.headers });
    expect(signOut.statusCode).toBe(200);
    await expectAll401(user.headers.authorization, 'Invalid session');
  });

  it('answers 401 Session expired with an expired session', async () => {
    const user = await signUpUser(ctx().app);
    ctx().clock.advance(7 * DAY + 1000);
    try {
      await expectAll401(user.headers.authorization, 'Session expired');
    } finally {
      ctx().clock.reset();
    }
  });
});
