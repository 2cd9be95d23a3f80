import type pg from 'pg';

type Counter = { current: number; ttl: number };
type StoreCallback = (error: Error | null, result?: Counter) => void;

// Fixed window per key: the first hit opens a window of `timeWindow` ms; later hits add to it until it closes.
const INCREMENT_SQL = `
  INSERT INTO rate_limits AS r (key, count, reset_at)
  VALUES ($1, $3, now() + make_interval(secs => $2::float8 / 1000))
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN r.reset_at <= now() THEN $3 ELSE r.count + $3 END,
    reset_at = CASE WHEN r.reset_at <= now() THEN now() + make_interval(secs => $2::float8 / 1000) ELSE r.reset_at END
  RETURNING count, GREATEST(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl`;

const READ_SQL = `
  SELECT count, GREATEST(0, ceil(extract(epoch FROM reset_at - now()) * 1000))::int AS ttl
  FROM rate_limits WHERE key = $1 AND reset_at > now()`;

/**
 * Limits up to this size (sign-in attempts, beta requests) are counted in the database on every
 * hit, exactly. Larger ones (the general API budget) are counted in memory and written to the
 * database in batches, because every request of a busy client updating one row would serialise
 * the whole service on that row's lock.
 */
const EXACT_UP_TO = 100;
const FLUSH_INTERVAL_MS = 250;

type LocalWindow = {
  /** The count in the database when we last wrote or read it (all instances). */
  shared: number;
  /** Hits on this instance not yet written. */
  pending: number;
  resetAt: number;
  timeWindow: number;
};

/**
 * The @fastify/rate-limit store of the service, kept in PostgreSQL so that every instance counts
 * against the same budget. Large budgets may be overrun by what other instances counted in their
 * last quarter second; small ones are exact. Expired rows are removed by the
 * `rate-limit-cleanup` job.
 */
export function postgresRateLimitStore(pool: pg.Pool) {
  const windows = new Map<string, LocalWindow>();
  let timer: NodeJS.Timeout | undefined;

  const increment = async (key: string, timeWindow: number, by: number) => {
    const { rows } = await pool.query<{ count: number; ttl: number }>(INCREMENT_SQL, [key, timeWindow, by]);
    const row = rows[0] ?? { count: by, ttl: timeWindow };
    return { current: row.count, ttl: row.ttl };
  };

  async function flush() {
    timer = undefined;
    const now = Date.now();
    const writes: Array<Promise<void>> = [];
    for (const [key, window] of windows) {
      if (window.pending === 0) {
        if (window.resetAt <= now) windows.delete(key);
        continue;
      }
      const delta = window.pending;
      window.pending = 0;
      writes.push(
        increment(key, window.timeWindow, delta).then(
          ({ current, ttl }) => {
            window.shared = current;
            window.resetAt = Date.now() + ttl;
          },
          () => {
            // Not written: count it again next time rather than lose it.
            window.pending += delta;
          },
        ),
      );
    }
    await Promise.all(writes);
  }

  const scheduleFlush = () => {
    timer ??= setTimeout(flush, FLUSH_INTERVAL_MS).unref();
  };

  class PostgresRateLimitStore {
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

    incr(key: string, callback: StoreCallback, timeWindow: number, max: number) {
      const fullKey = `${this.namespace}|${key}`;
      const local = windows.get(fullKey);
      if (max > EXACT_UP_TO && local && local.resetAt > Date.now()) {
        local.pending += 1;
        scheduleFlush();
        callback(null, { current: local.shared + local.pending, ttl: local.resetAt - Date.now() });
        return;
      }
      increment(fullKey, timeWindow, 1).then((counter) => {
        if (max > EXACT_UP_TO) {
          windows.set(fullKey, {
            shared: counter.current,
            pending: 0,
            resetAt: Date.now() + counter.ttl,
            timeWindow,
          });
        }
        callback(null, counter);
      }, callback);
    }

    read(key: string, callback: StoreCallback) {
      pool
        .query<{ count: number; ttl: number }>(READ_SQL, [`${this.namespace}|${key}`])
        .then(
          ({ rows: [row] }) => callback(null, { current: row?.count ?? 0, ttl: row?.ttl ?? 0 }),
          callback,
        );
    }

    child(options: unknown) {
      return new PostgresRateLimitStore(options);
    }
  }

  return {
    Store: PostgresRateLimitStore,
    /** Writes what is still counted only in memory; called when the app closes. */
    close: async () => {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}
