import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { fromDrizzle, type JobResult, PgBoss, type Queue } from 'pg-boss';
import type { Db, Tx } from '../db/client.ts';

/** A durable background job: a pg-boss queue, its worker and, optionally, a cron schedule. */
export type JobDefinition<Data extends object = object> = {
  name: string;
  /** Cron expression (UTC) that enqueues the job on schedule; pg-boss runs it once across all instances. */
  cron?: string;
  /**
   * The queue's retry policy and expiry, its policy (`stately`: at most one job waiting and one
   * running) and `notify` (workers woken the moment a job is created, not at their next poll).
   */
  queue?: Omit<Queue, 'name'>;
  /** Jobs fetched at once by a worker (default 1); a full batch makes it fetch again without waiting. */
  batchSize?: number;
  handler: (
    data: Data,
    context: { db: Db; logger: FastifyBaseLogger; jobs: Pick<JobQueue, 'send'> },
  ) => Promise<void>;
};

export type JobQueue = {
  /**
   * Enqueues a job; with `tx`, inside that transaction, so the job exists only if the transaction
   * commits; with `startAfter`, not before that many seconds.
   */
  send(name: string, data?: object, options?: { tx?: Tx; startAfter?: number }): Promise<string | null>;
  isRunning(): boolean;
  /** Stops fetching new jobs and waits (up to `timeoutMs`) for the running ones to finish. */
  stop(timeoutMs: number): Promise<void>;
};

export async function startJobQueue(options: {
  url: string;
  db: Db;
  logger: FastifyBaseLogger;
  jobs: JobDefinition[];
  pollingIntervalSeconds?: number;
}): Promise<JobQueue> {
  const { db, logger, jobs } = options;
  const boss = new PgBoss({
    connectionString: options.url,
    schema: 'pgboss',
    max: 4,
    application_name: 'knowledge-hub-jobs',
    // One LISTEN connection, so that queues with `notify` wake their workers at once.
    useListenNotify: true,
  });
  let running = false;
  boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));
  boss.on('stopped', () => {
    running = false;
  });
  await boss.start();
  running = true;
  // Jobs may ask for more jobs (a sweep queueing the work it found).
  const send: JobQueue['send'] = (name, data = {}, { tx, startAfter } = {}) =>
    boss.send(name, data, {
      ...(tx ? { db: fromDrizzle(tx, sql) } : {}),
      ...(startAfter ? { startAfter } : {}),
    });

  for (const job of jobs) {
    await boss.createQueue(job.name, job.queue);
    await boss.work<object>(
      job.name,
      {
        pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
        batchSize: job.batchSize ?? 1,
        // A full batch means more are waiting: fetch the next at once rather than after the interval.
        burstWhenBatchFull: true,
        perJobResults: true,
      },
      async (items) => {
        const results: JobResult[] = [];
        // One at a time, each with its own outcome: a failing job is retried without its batch.
        for (const item of items) {
          const jobLogger = logger.child({ job: job.name, jobId: item.id });
          try {
            await job.handler(item.data ?? {}, { db, logger: jobLogger, jobs: { send } });
            results.push({ id: item.id, status: 'completed' });
          } catch (error) {
            jobLogger.warn({ err: error }, 'job failed');
            results.push({ id: item.id, status: 'failed', output: { message: (error as Error).message } });
          }
        }
        return results;
      },
    );
    if (job.cron) await boss.schedule(job.name, job.cron);
  }

  return {
    send,
    isRunning: () => running,
    stop: async (timeoutMs) => {
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
      running = false;
    },
  };
}
