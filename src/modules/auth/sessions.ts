import { eq, lt } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { jsonObjectOf, poolOf, rowReader, runPrepared } from '../../db/hot-path.ts';
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

/**
 * A row a route reads in the same round trip as the caller's credential: `value`, a SQL expression
 * of type json (null when the joins match nothing), the LEFT JOINs that reach it (the caller is
 * `u`; its own values start at `$2`) and those values. `name` names the combined prepared
 * statement. One round trip less is a fifth of a hot read's cost (docs/benchmarks.md, "the read
 * path against its floor").
 */
export type SameTripRead = { name: string; value: string; joins: string; values: unknown[] };

/** What a SameTripRead's value held (parsed JSON), or null. */
export type SameTripRow = Record<string, unknown> | null;

export type Authentication =
  | {
      kind: 'session';
      user: AuthUser;
      sessionId: string;
      expiresAt: Date;
      refreshed: boolean;
      alongside: SameTripRow;
    }
  | { kind: 'api_key'; user: AuthUser; apiKeyId: string; alongside: SameTripRow }
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

/**
 * Resolves a bearer token or session cookie value: a session, an API key, or why not; with
 * `read`, the row it reads too (`alongside`), in the same statement.
 */
export async function authenticate(
  db: Db,
  clock: Clock,
  token: string,
  read: SameTripRead | null = null,
): Promise<Authentication> {
  return token.startsWith(API_KEY_PREFIX)
    ? authenticateApiKey(db, clock, token, read)
    : authenticateSession(db, clock, token, read);
}

// Only the AuthUser's columns (the password hash and the rest of the row stay in the database), as
// one json field: every authenticated request reads them, and `pg` works per field (db/hot-path.ts).
const USER_COLUMNS = `${jsonObjectOf(authUserColumns, 'u')} AS "user"`;
const userFromJson = rowReader<AuthUser>(authUserColumns);

/** The caller's session (or API key) by the hash of the token sent, with the caller and what `read` adds. */
const sessionByTokenHash = (read: SameTripRead | null) => `SELECT ${USER_COLUMNS}, s.id,
    s.expires_at AS "expiresAt", s.refreshed_at AS "refreshedAt", s.last_used_at AS "lastUsedAt"
    ${read ? `, ${read.value} AS alongside` : ''}
  FROM sessions s JOIN users u ON u.id = s.user_id ${read?.joins ?? ''} WHERE s.token_hash = $1`;
const apiKeyByHash = (read: SameTripRead | null) => `SELECT ${USER_COLUMNS}, k.id,
    k.expires_at AS "expiresAt", k.last_used_at AS "lastUsedAt" ${read ? `, ${read.value} AS alongside` : ''}
  FROM api_keys k JOIN users u ON u.id = k.user_id ${read?.joins ?? ''} WHERE k.key_hash = $1`;

type Found = { user: AuthUser; alongside: SameTripRow };
type SessionRow = Found & { id: string; expiresAt: Date; refreshedAt: Date; lastUsedAt: Date };
type ApiKeyRow = Found & { id: string; expiresAt: Date | null; lastUsedAt: Date | null };

/** A credential's statement: its name, and its text alone or with a SameTripRead. */
type CredentialQuery = { name: string; text: (read: SameTripRead | null) => string };
const SESSION_QUERY: CredentialQuery = { name: 'auth_session_by_token_hash', text: sessionByTokenHash };
const API_KEY_QUERY: CredentialQuery = { name: 'auth_api_key_by_hash', text: apiKeyByHash };

// Each statement's text is built once: one prepared statement per credential and read.
const statementTexts = new Map<string, string>();

/** The credential row for `token` (by its hash), with the caller and what `read` reads alongside. */
async function lookUp<Row extends Found>(
  db: Db,
  query: CredentialQuery,
  token: string,
  read: SameTripRead | null,
) {
  const pool = poolOf(db);
  if (!pool) throw new Error('credentials are looked up outside transactions');
  const name = read ? `${query.name}+${read.name}` : query.name;
  let text = statementTexts.get(name);
  if (text === undefined) {
    text = query.text(read);
    statementTexts.set(name, text);
  }
  const [row] = await runPrepared<Record<string, unknown>>(pool, name, text, [
    hashToken(token),
    ...(read?.values ?? []),
  ]);
  return row
    ? ({
        ...row,
        user: userFromJson(row.user as Record<string, unknown>),
        alongside: row.alongside ?? null,
      } as unknown as Row)
    : undefined;
}

async function authenticateSession(
  db: Db,
  clock: Clock,
  token: string,
  read: SameTripRead | null,
): Promise<Authentication> {
  const row = await lookUp<SessionRow>(db, SESSION_QUERY, token, read);
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
  return {
    kind: 'session',
    user: row.user,
    sessionId: row.id,
    expiresAt,
    refreshed: refresh,
    alongside: row.alongside,
  };
}

async function authenticateApiKey(
  db: Db,
  clock: Clock,
  key: string,
  read: SameTripRead | null,
): Promise<Authentication> {
  const row = await lookUp<ApiKeyRow>(db, API_KEY_QUERY, key, read);
  if (!row) return { kind: 'invalid' };
  const now = clock.now();
  if (row.expiresAt && row.expiresAt <= now) return { kind: 'expired' };
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return { kind: 'api_key', user: row.user, apiKeyId: row.id, alongside: row.alongside };
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
