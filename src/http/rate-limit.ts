import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { AppError } from './errors.ts';
import { postgresRateLimitStore } from './rate-limit-store.ts';

/**
 * Requests with credentials are counted per credential: by its session or API key id once
 * authentication (which runs first) has found it, else hashed, never stored raw; others per IP.
 */
export function rateLimitKey(request: FastifyRequest): string {
  if (request.auth?.session) return `session:${request.auth.session.id}`;
  if (request.auth?.apiKeyId) return `key:${request.auth.apiKeyId}`;
  const credential = request.headers.authorization ?? request.cookies?.['svc-auth.session_token'];
  if (credential) return `cred:${createHash('sha256').update(credential).digest('base64url')}`;
  return `ip:${request.ip}`;
}

export async function registerRateLimit(
  app: FastifyInstance,
  { pool, perMinute }: { pool: pg.Pool; perMinute: number },
) {
  const store = postgresRateLimitStore(pool);
  // Before the pool closes: counts still held in memory are written.
  app.addHook('onClose', store.close);
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    store: store.Store,
    keyGenerator: rateLimitKey,
    // The reference page's own script and styles: static, cached by browsers, no one's quota.
    allowList: (request) => request.url.startsWith('/docs'),
    enableDraftSpec: true,
    // If the counter store is unreachable the request still goes through; the database error surfaces elsewhere.
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      new AppError(429, 'RATE_LIMITED', `Rate limit exceeded: ${context.max} requests per ${context.after}`),
  });
}

/**
 * Route config for endpoints that take an email and a secret (sign-in, sign-up, reset): 10 tries
 * per 15 minutes per client IP and email. Runs after body parsing so the email is known.
 */
export const perEmailAttemptLimit = {
  max: 10,
  timeWindow: 15 * 60_000,
  hook: 'preHandler' as const,
  keyGenerator: (request: FastifyRequest) => {
    const email = (request.body as { email?: unknown } | undefined)?.email;
    return `${request.ip}|${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
  },
};
