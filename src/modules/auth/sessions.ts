import { eq, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { apiKeys, sessions, users } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import { addSeconds, type Clock } from '../../lib/clock.ts';
import { hashToken, hmac, randomToken } from '../../lib/crypto.ts';

export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
/** A session used more than this long after its last refresh gets a new 7-day expiry. */
export const SESSION_REFRESH_SECONDS = 24 * 3600;
/** `lastUsedAt` of sessions and API keys is written at most this often, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;
export const API_KEY_PREFIX = 'khk_';

export type AuthUser = {
  id: string;
  email: string;
  name: string;
  avatarUrl: string | null;
  defaultOrganizationId: string | null;
  /** Set once the user proved they receive mail at `email` (OAuth, a reset, an invitation). */
  emailVerifiedAt: Date | null;
  createdAt: Date;
};

export type Authentication =
  | { kind: 'session'; user: AuthUser; sessionId: string; expiresAt: Date; refreshed: boolean }
  | { kind: 'api_key'; user: AuthUser; apiKeyId: string }
  | { kind: 'invalid' }
  | { kind: 'expired' };

/** The columns of an AuthUser, for every query that loads the caller. */
export const authUserColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  avatarUrl: users.avatarUrl,
  defaultOrganizationId: users.defaultOrganizationId,
  emailVerifiedAt: users.emailVerifiedAt,
  createdAt: users.createdAt,
};

/** Opens a session. The token is returned once (it is the bearer token and the cookie); only its hash is kept. */
export async function createSession(
  db: Db | Tx,
  clock: Clock,
  input: { userId: string; userAgent?: string | undefined; ip?: string | undefined },
) {
  let token = randomToken(32);
  // Tokens with the API key prefix are read as keys; one in ~17 million random tokens would collide.
  while (token.startsWith(API_KEY_PREFIX)) token = randomToken(32);
  const now = clock.now();
  const expiresAt = addSeconds(now, SESSION_TTL_SECONDS);
  const [row] = await db
    .insert(sessions)
    .values({
      userId: input.userId,
      tokenHash: hashToken(token),
      expiresAt,
      refreshedAt: now,
      lastUsedAt: now,
      userAgent: input.userAgent?.slice(0, 512) ?? null,
      ip: input.ip ?? null,
    })
    .returning({ id: sessions.id });
  if (!row) throw new Error('session insert returned nothing');
  return { token, id: row.id, expiresAt };
}

/** Resolves a bearer token or session cookie value: a session, an API key, or why not. */
export async function authenticate(db: Db, clock: Clock, token: string): Promise<Authentication> {
  return token.startsWith(API_KEY_PREFIX)
    ? authenticateApiKey(db, clock, token)
    : authenticateSession(db, clock, token);
}

/**
 * Every authenticated request runs these lookups, so they are prepared once per database handle:
 * no query building per request, and PostgreSQL keeps the plan.
 */
const preparedLookups = new WeakMap<Db, ReturnType<typeof prepareLookups>>();

function prepareLookups(db: Db) {
  const hash = sql.placeholder('hash');
  return {
    session: db
      .select({
        user: authUserColumns,
        id: sessions.id,
        expiresAt: sessions.expiresAt,
        refreshedAt: sessions.refreshedAt,
        lastUsedAt: sessions.lastUsedAt,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(eq(sessions.tokenHash, hash))
      .prepare('auth_session_by_token_hash'),
    apiKey: db
      .select({
        user: authUserColumns,
        id: apiKeys.id,
        expiresAt: apiKeys.expiresAt,
        lastUsedAt: apiKeys.lastUsedAt,
      })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .where(eq(apiKeys.keyHash, hash))
      .prepare('auth_api_key_by_hash'),
  };
}

function lookups(db: Db) {
  let prepared = preparedLookups.get(db);
  if (!prepared) {
    prepared = prepareLookups(db);
    preparedLookups.set(db, prepared);
  }
  return prepared;
}

async function authenticateSession(db: Db, clock: Clock, token: string): Promise<Authentication> {
  const [row] = await lookups(db).session.execute({ hash: hashToken(token) });
  if (!row) return { kind: 'invalid' };
  const now = clock.now();
  if (row.expiresAt <= now) return { kind: 'expired' };

  const refresh = now.getTime() - row.refreshedAt.getTime() > SESSION_REFRESH_SECONDS * 1000;
  const expiresAt = refresh ? addSeconds(now, SESSION_TTL_SECONDS) : row.expiresAt;
  if (refresh || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db
      .update(sessions)
      .set(refresh ? { expiresAt, refreshedAt: now, lastUsedAt: now } : { lastUsedAt: now })
      .where(eq(sessions.id, row.id));
  }
  return { kind: 'session', user: row.user, sessionId: row.id, expiresAt, refreshed: refresh };
}

async function authenticateApiKey(db: Db, clock: Clock, key: string): Promise<Authentication> {
  const [row] = await lookups(db).apiKey.execute({ hash: hashToken(key) });
  if (!row) return { kind: 'invalid' };
  const now = clock.now();
  if (row.expiresAt && row.expiresAt <= now) return { kind: 'expired' };
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return { kind: 'api_key', user: row.user, apiKeyId: row.id };
}

/** The CSRF token of a session: derived from it (HMAC of its hash), so it is bound to it and never stored. */
export const csrfTokenFor = (secret: string, sessionToken: string) =>
  hmac(secret, `csrf:${hashToken(sessionToken)}`);

export async function revokeSession(db: Db, sessionId: string) {
  await db.delete(sessions).where(eq(sessions.id, sessionId));
}

export async function revokeAllSessions(db: Db | Tx, userId: string) {
  await db.delete(sessions).where(eq(sessions.userId, userId));
}

/** Expired sessions are kept a while (so their owner hears "Session expired"), then removed. */
export const sessionCleanupJob: JobDefinition = {
  name: 'session-cleanup',
  cron: '17 3 * * *',
  handler: async (_data, { db, logger }) => {
    const cutoff = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    const removed = await db
      .delete(sessions)
      .where(lt(sessions.expiresAt, cutoff))
      .returning({ id: sessions.id });
    logger.info({ removed: removed.length }, 'expired sessions removed');
  },
};
