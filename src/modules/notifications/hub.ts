import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { z } from 'zod';
import { NOTIFICATION_CHANNEL } from './notify.ts';

/** What a live stream receives: each new notification of its user, and a call to catch up after a gap. */
export type Subscriber = {
  userId: string;
  deliver(notificationId: string): void;
  /** The hub lost its LISTEN connection for a while: fetch what may have been missed. */
  resync(): void;
};

export type NotificationHub = {
  /** Starts listening if needed; resolves once notifications for the subscriber will reach it. */
  subscribe(subscriber: Subscriber): Promise<() => void>;
  close(): Promise<void>;
};

const payloadSchema = z.object({ id: z.string(), userId: z.string() });
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/**
 * One LISTEN connection per instance fans PostgreSQL notifications out to the streams open on
 * this instance. Every instance listens, so a notification committed by any of them reaches a
 * stream held by any other. The connection opens with the first stream and reconnects with
 * backoff; streams then resync, since NOTIFY is not replayed to a listener that was away.
 */
export function createNotificationHub(options: {
  connectionString: string;
  logger: FastifyBaseLogger;
}): NotificationHub {
  const { logger } = options;
  const subscribers = new Map<string, Set<Subscriber>>();
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let reconnectDelay = RECONNECT_MIN_MS;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const onNotification = (message: pg.Notification) => {
    let parsed: ReturnType<typeof payloadSchema.safeParse>;
    try {
      parsed = payloadSchema.safeParse(JSON.parse(message.payload ?? 'null'));
    } catch {
      return;
    }
    if (!parsed.success) return;
    for (const subscriber of subscribers.get(parsed.data.userId) ?? []) subscriber.deliver(parsed.data.id);
  };

  const scheduleReconnect = () => {
    if (closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      listen().then(
        () => {
          for (const group of subscribers.values()) for (const subscriber of group) subscriber.resync();
        },
        () => scheduleReconnect(),
      );
    }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, RECONNECT_MAX_MS);
  };

  const listen = (): Promise<void> => {
    if (client) return Promise.resolve();
    connecting ??= (async () => {
      const next = new pg.Client({
        connectionString: options.connectionString,
        application_name: 'knowledge-hub-notifications',
      });
      const lost = (error?: Error) => {
        if (client !== next) return;
        client = null;
        next.removeAllListeners('notification');
        next.end().catch(() => {});
        if (closed) return;
        logger.warn({ err: error }, 'notification listener lost its connection; reconnecting');
        scheduleReconnect();
      };
      next.on('error', lost);
      next.on('end', () => lost());
      next.on('notification', onNotification);
      try {
        await next.connect();
        await next.query(`LISTEN ${NOTIFICATION_CHANNEL}`);
      } catch (error) {
        next.end().catch(() => {});
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
    async subscribe(subscriber) {
      await listen();
      let group = subscribers.get(subscriber.userId);
      if (!group) {
        group = new Set();
        subscribers.set(subscriber.userId, group);
      }
      group.add(subscriber);
      return () => {
        group.delete(subscriber);
        if (group.size === 0 && subscribers.get(subscriber.userId) === group) {
          subscribers.delete(subscriber.userId);
        }
      };
    },
    async close() {
      closed = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      subscribers.clear();
      await connecting?.catch(() => {});
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
