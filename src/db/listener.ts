import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

export type Listener = {
  /** Opens the LISTEN connection if it is not open; resolves once notifications will arrive. */
  start(): Promise<void>;
  close(): Promise<void>;
};

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/**
 * One PostgreSQL LISTEN connection, outside the pool (it is held for good), that reconnects with
 * backoff after losing its server. NOTIFY is not replayed to a listener that was away, so
 * `onReconnect` is where its user catches up.
 */
export function createListener(options: {
  connectionString: string;
  channel: string;
  /** How the connection shows in pg_stat_activity. */
  applicationName: string;
  logger: FastifyBaseLogger;
  onNotification(payload: string | undefined): void;
  onReconnect(): void;
}): Listener {
  const { logger } = options;
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const scheduleReconnect = () => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      start().then(options.onReconnect, () => scheduleReconnect());
    }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
  };

  const start = (): Promise<void> => {
    if (client || closed) return Promise.resolve();
    connecting ??= (async () => {
      const next = new pg.Client({
        connectionString: options.connectionString,
        application_name: options.applicationName,
      });
      const lost = (error?: Error) => {
        if (client !== next) return;
        client = null;
        next.removeAllListeners('notification');
        next.end().catch(() => {});
        if (closed) return;
        logger.warn({ err: error, channel: options.channel }, 'listener lost its connection; reconnecting');
        scheduleReconnect();
      };
      next.on('error', lost);
      next.on('end', () => lost());
      next.on('notification', (message) => options.onNotification(message.payload));
      try {
        await next.connect();
        await next.query(`LISTEN ${pg.escapeIdentifier(options.channel)}`);
      } catch (error) {
        next.end().catch(() => {});
        // Keep trying in the background: a database that was away at start-up comes back.
        scheduleReconnect();
        throw error;
      }
      if (closed) {
        await next.end();
        return;
      }
      client = next;
      reconnectDelay = RECONNECT_MIN_MS;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };

  return {
    start,
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      await connecting?.catch(() => {});
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
