import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Clock } from './lib/clock.ts';

/** What services need from the outside world; route plugins receive it and pass it on. */
export type AppContext = {
  config: Config;
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  logger: FastifyBaseLogger;
};
