import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { createListener } from '../../db/listener.ts';
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

/**
 * One LISTEN connection per instance fans PostgreSQL notifications out to the streams open on
 * this instance. Every instance listens, so a notification committed by any of them reaches a
 * stream held by any other. The connection opens with the first stream; after a reconnection
 * streams resync, since NOTIFY is not replayed to a listener that was away.
 */
export function createNotificationHub(options: {
  connectionString: string;
  logger: FastifyBaseLogger;
}): NotificationHub {
  const subscribers = new Map<string, Set<Subscriber>>();

  const listener = createListener({
    connectionString: options.connectionString,
    channel: NOTIFICATION_CHANNEL,
    applicationName: 'knowledge-hub-notifications',
    logger: options.logger,
    onNotification: (payload) => {
      let parsed: ReturnType<typeof payloadSchema.safeParse>;
      try {
        parsed = payloadSchema.safeParse(JSON.parse(payload ?? 'null'));
      } catch {
        return;
      }
      if (!parsed.success) return;
      for (const subscriber of subscribers.get(parsed.data.userId) ?? []) subscriber.deliver(parsed.data.id);
    },
    onReconnect: () => {
      for (const group of subscribers.values()) for (const subscriber of group) subscriber.resync();
    },
  });

  return {
    async subscribe(subscriber) {
      await listener.start();
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
      subscribers.clear();
      await listener.close();
    },
  };
}
