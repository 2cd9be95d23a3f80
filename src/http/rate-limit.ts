import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { AppError } from './errors.ts';

type StoreResult = { current: number; ttl: number };
type StoreCallback = (error: Error | null, result?: StoreResult) => void;

// Fixed window per key: the first hit opens a window of `timeWindow` ms; later hits count until it closes.
const INCREMENT_SQL = `
  INSERT INTO rate_limits AS r (key, count, reset_at)
  VALUES ($1, 1, now() + make_interval(secs => $2::float8 / 1000))
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.count + 1 END,
    reset_at = CASE WHEN r.reset_at <= now() THEN now() + make_interval(secs => $2::float8 / 1000) ELSE r.reset_at END
  RETURNING count, GREATEST(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl`;

const READ_SQL = `
  SELECT count, GREATEST(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl
  FROM rate_limits WHERE key = $1 AND reset_at > now()`;

/**
 * A @fastify/rate-limit store kept in PostgreSQL, so every instance of the service counts
 * against the same limits. Expired rows are removed by the `rate-limit-cleanup` job.
 */
function postgresStore(pool: pg.Pool) {
  return class PostgresRateLimitStore {
    readonly namespace: string;

    // The plugin passes its merged settings: `groupId` when set, and the route for per-route limits.
    constructor(options: unknown) {
      const { groupId, routeInfo } = options as {
        groupId?: string;
        routeInfo?: { method?: unknown; url?: string };
      };
      this.namespace =
        groupId ?? (routeInfo?.url ? `${String(routeInfo.method)}:${routeInfo.url}` : 'global');
    }

    incr(key: string, callback: StoreCallback, timeWindow: number) {
      this.run(INCREMENT_SQL, [`${this.namespace}|${key}`, timeWindow], callback);
    }

    read(key: string, callback: StoreCallback) {
      this.run(READ_SQL, [`${this.namespace}|${key}`], callback);
    }

    child(options: unknown) {
      return new PostgresRateLimitStore(options);
    }

    private run(sql: string, values: unknown[], callback: StoreCallback) {
      pool.query<{ count: number; ttl: number }>(sql, values).then(
        ({ rows: [row] }) => callback(null, { current: row?.count ?? 0, ttl: row?.ttl ?? 0 }),
        (error: Error) => callback(error),
      );
    }
  };
}

/** Requests with credentials are counted per credential (hashed, never stored raw); others per IP. */
export function rateLimitKey(request: FastifyRequest): string {
  const credential = request.headers.authorization ?? request.cookies?.['svc-auth.session_token'];
  if (credential) return `cred:${createHash('sha256').update(credential).digest('base64url')}`;
  return `ip:${request.ip}`;
}

export async function registerRateLimit(
  app: FastifyInstance,
  { pool, perMinute }: { pool: pg.Pool; perMinute: number },
) {
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    store: postgresStore(pool),
    keyGenerator: rateLimitKey,
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
