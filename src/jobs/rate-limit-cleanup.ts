import { lt, sql } from 'drizzle-orm';
import { rateLimits } from '../db/schema/index.ts';
import type { JobDefinition } from './queue.ts';

/** Removes rate-limit windows that closed more than a minute ago, so the table stays small. */
export const rateLimitCleanupJob: JobDefinition = {
  name: 'rate-limit-cleanup',
  cron: '*/5 * * * *',
  handler: async (_data, { db, logger }) => {
    const removed = await db
      .delete(rateLimits)
      .where(lt(rateLimits.resetAt, sql`now() - interval '1 minute'`))
      .returning({ key: rateLimits.key });
    logger.debug({ removed: removed.length }, 'expired rate-limit windows removed');
  },
};
