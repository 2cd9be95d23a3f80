import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { AppContext } from '../../context.ts';
import { createListener } from '../../db/listener.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { DELIVERY_JOB } from './deliveries.ts';
import { DELIVERY_CHANNEL } from './events.ts';

/** Notifications that arrive within this long wake the job once. */
const COALESCE_MS = 50;

/**
 * Wakes the delivery job as soon as an outbox row commits (queueIntegrationEvent notifies on
 * commit), so a delivery leaves within the job queue's polling interval rather than at the next
 * minutely sweep. A burst of events (a bulk import) wakes it once.
 */
export function startDeliveryWaker(options: {
  connectionString: string;
  logger: FastifyBaseLogger;
  jobs: Pick<JobQueue, 'send'>;
}) {
  let timer: NodeJS.Timeout | null = null;
  const wake = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      options.jobs
        .send(DELIVERY_JOB)
        .catch((error) => options.logger.warn({ err: error }, 'could not wake deliveries'));
    }, COALESCE_MS);
  };
  const listener = createListener({
    connectionString: options.connectionString,
    channel: DELIVERY_CHANNEL,
    applicationName: 'knowledge-hub-deliveries',
    logger: options.logger,
    onNotification: wake,
    // Rows committed while the connection was down are due now.
    onReconnect: wake,
  });
  return {
    /** Listens, and wakes the job once: rows committed while no instance listened are due now. */
    start: async () => {
      wake();
      await listener.start();
    },
    close: async () => {
      if (timer) clearTimeout(timer);
      await listener.close();
    },
  };
}

/**
 * Runs the waker with the app: listening once the app is ready (without it, deliveries still
 * leave at the minutely sweep), closed with it. Its LISTEN connection goes where the pool's go,
 * outside the pool, like the notification stream's.
 */
export function registerDeliveryWaker(app: FastifyInstance, options: { context: AppContext; pool: pg.Pool }) {
  const { context } = options;
  const waker = startDeliveryWaker({
    connectionString: String(options.pool.options.connectionString),
    logger: context.logger,
    jobs: context.jobs,
  });
  app.addHook('onReady', async () => {
    await waker
      .start()
      .catch((error) => context.logger.warn({ err: error }, 'delivery waker not listening yet'));
  });
  app.addHook('onClose', () => waker.close());
}
