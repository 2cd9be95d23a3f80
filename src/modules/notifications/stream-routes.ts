import { PassThrough } from 'node:stream';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { notifications } from '../../db/schema/index.ts';
import { authenticated, callerId, credentialStillValid, security } from '../../http/auth.ts';
import { errorResponses, errors } from '../../http/errors.ts';
import { UUID_PATTERN } from '../../http/ids.ts';
import { openEventStreams } from '../../lib/metrics.ts';
import { createNotificationHub } from './hub.ts';
import { notificationViews } from './queries.ts';
import type { NotificationView } from './schemas.ts';

/** Notifications a reconnecting client may have missed that a stream replays, at most. */
const REPLAY_LIMIT = 100;
/** Streams one person may hold open on one instance (tabs, devices): each holds a connection and a timer. */
const STREAMS_PER_USER = 10;
/** Ids remembered per stream so that a replay never repeats what the stream already sent. */
const SENT_MEMORY = 500;

const streamDescription = `Server-sent events (\`text/event-stream\`). Events:
- \`ready\` once connected: \`{"unreadCount": n}\`;
- \`notification\` for each new notification: the Notification, with the notification's id as the event id.

A notification created by any instance of the service arrives within a second (PostgreSQL LISTEN/NOTIFY).
Reconnect with \`Last-Event-ID\` (browsers do it by themselves) to receive, first, up to ${REPLAY_LIMIT} notifications
created after that one. Comment lines (\`: keep-alive\`) keep idle connections open; the credential is re-checked
at each, and a signed-out session or revoked API key ends the stream.`;

/** `GET /notifications/stream`: each person's new notifications, live. */
export const notificationStreamRoutes: FastifyPluginAsyncZod<{ context: AppContext; pool: pg.Pool }> = async (
  app,
  { context, pool },
) => {
  // The LISTEN connection goes where the pool's connections go, outside the pool: it is held for good.
  const hub = createNotificationHub({
    connectionString: String(pool.options.connectionString),
    logger: context.logger,
  });
  const openStreams = new Set<PassThrough>();
  const streamsPerUser = new Map<string, number>();
  // Open streams never end by themselves: end them first, or shutdown would wait for their clients.
  app.addHook('preClose', async () => {
    for (const stream of openStreams) stream.end();
  });
  app.addHook('onClose', () => hub.close());

  app.get(
    '/notifications/stream',
    {
      onRequest: authenticated,
      schema: {
        tags: ['Notifications'],
        summary: 'Your new notifications as they happen (server-sent events)',
        description: streamDescription,
        security,
        headers: z.object({
          'last-event-id': z
            .string()
            .optional()
            .meta({ description: 'The id of the last notification received; others are ignored.' }),
        }),
        response: {
          200: {
            description: 'An event stream that stays open',
            content: { 'text/event-stream': { schema: z.string() } },
          },
          ...errorResponses(401, 429),
        },
      },
    },
    async (request, reply) => {
      const userId = callerId(request);
      const held = streamsPerUser.get(userId) ?? 0;
      if (held >= STREAMS_PER_USER) {
        throw errors.tooManyRequests(
          `At most ${STREAMS_PER_USER} notification streams may be open at once; close one first`,
          'TOO_MANY_STREAMS',
        );
      }
      streamsPerUser.set(userId, held + 1);
      const lastEventId = request.headers['last-event-id'];
      const resumeFrom = lastEventId && UUID_PATTERN.test(lastEventId) ? lastEventId.toLowerCase() : null;
      const stream = new PassThrough();
      openStreams.add(stream);
      const release = () => {
        const left = (streamsPerUser.get(userId) ?? 1) - 1;
        if (left > 0) streamsPerUser.set(userId, left);
        else streamsPerUser.delete(userId);
        openStreams.delete(stream);
      };

      const sent = new Set<string>();
      // Notifications newer than this are the ones a resync looks for; ids are time-ordered UUIDv7s.
      let cursor = resumeFrom ?? uuidv7();
      const send = (view: NotificationView) => {
        if (sent.has(view.id) || stream.writableEnded) return;
        sent.add(view.id);
        if (sent.size > SENT_MEMORY) sent.delete(sent.values().next().value as string);
        if (view.id > cursor) cursor = view.id;
        stream.write(`id: ${view.id}\nevent: notification\ndata: ${JSON.stringify(view)}\n\n`);
      };
      // One fetch at a time, so events leave in the order they were announced.
      let pending = Promise.resolve();
      const enqueue = (load: () => Promise<NotificationView[]>) => {
        pending = pending
          .then(async () => {
            if (stream.writableEnded) return;
            for (const view of await load()) send(view);
          })
          .catch((error) => request.log.warn({ err: error }, 'notification stream could not load'));
      };
      const catchUp = () =>
        enqueue(async () =>
          (
            await notificationViews(
              context.db,
              and(eq(notifications.userId, userId), gt(notifications.id, cursor)),
              { limit: REPLAY_LIMIT, offset: 0 },
            )
          ).reverse(),
        );

      let unsubscribe: () => void;
      try {
        unsubscribe = await hub.subscribe({
          userId,
          deliver: (id) =>
            enqueue(() =>
              notificationViews(context.db, and(eq(notifications.id, id), eq(notifications.userId, userId))),
            ),
          resync: catchUp,
        });
      } catch (error) {
        release();
        throw error;
      }
      // A database hiccup does not end a stream; only a credential that is known to be gone does.
      const heartbeat = setInterval(async () => {
        const valid = await credentialStillValid(request, context).catch(() => true);
        if (stream.writableEnded) return;
        if (valid) stream.write(': keep-alive\n\n');
        else stream.end();
      }, context.config.notificationStreamHeartbeatSeconds * 1000);
      let finished = false;
      openEventStreams.inc();
      const finish = () => {
        if (finished) return;
        finished = true;
        openEventStreams.dec();
        release();
        clearInterval(heartbeat);
        unsubscribe();
        stream.end();
      };
      reply.raw.on('close', finish);
      stream.on('end', finish);

      stream.write('retry: 3000\n\n');
      enqueue(async () => {
        const unreadCount = await context.db.$count(
          notifications,
          and(eq(notifications.userId, userId), isNull(notifications.readAt)),
        );
        stream.write(`event: ready\ndata: ${JSON.stringify({ unreadCount })}\n\n`);
        return [];
      });
      if (resumeFrom) catchUp();
      return (
        reply
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache, no-transform')
          .header('x-accel-buffering', 'no')
          // When the stream ends (sign-out, shutdown) the connection goes with it, rather than idling in keep-alive.
          .header('connection', 'close')
          // The schema's string is what the OpenAPI document shows; the body is streamed.
          .send(stream as unknown as string)
      );
    },
  );
};
