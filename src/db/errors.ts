import type { Db, Tx } from './client.ts';

/**
 * What a PostgreSQL error says, read the same way whether drizzle wrapped it (a DrizzleQueryError,
 * the driver's error on its `cause`) or pg threw it.
 */
const sqlStateOf = (error: unknown): string | undefined => {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  const state = typeof cause?.code === 'string' ? cause.code : code;
  return typeof state === 'string' && state.length === 5 ? state : undefined;
};

export const isUniqueViolation = (error: unknown) => sqlStateOf(error) === '23505';

/**
 * A row written that refers to one no longer there. Every foreign key cascades or sets null on
 * delete, so this comes only from a write whose parent (an organization, a video) was deleted
 * after the request had read it.
 */
export const isForeignKeyViolation = (error: unknown) => sqlStateOf(error) === '23503';

/**
 * Class 40, transaction rollback: the database aborted the transaction for what other
 * transactions were doing at the time (a deadlock, a serialization failure), not for anything in
 * it. The same transaction run again normally succeeds.
 */
export const isTransactionRollback = (error: unknown) => sqlStateOf(error)?.startsWith('40') ?? false;

/**
 * SQLSTATE classes of the database's own trouble, not of the data: connection exceptions (08),
 * transaction rollbacks (40), insufficient resources (53) and operator intervention — cancelled
 * statements, timeouts, shutdowns (57).
 */
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '57']);

/** A database error that a later attempt may not meet. */
export const isTransientDatabaseError = (error: unknown) =>
  TRANSIENT_CLASSES.has(sqlStateOf(error)?.slice(0, 2) ?? '');

/**
 * A transaction, run again when the database rolls it back (isTransactionRollback), up to
 * `attempts` times in all. For writes that lock rows other writers also lock — deleting an
 * organization cascades through every row it owns while background jobs hold some of them and
 * reach for the organization — PostgreSQL breaks such a deadlock by aborting one side, usually
 * the one that waited longest. `work` must do nothing outside the transaction (jobs are sent with
 * it), so that running it again has no second effect.
 */
export async function retriedTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= attempts || !isTransactionRollback(error)) throw error;
    }
  }
}
