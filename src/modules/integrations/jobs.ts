import type { AppContext } from '../../context.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import { DELIVERY_JOB, DELIVERY_RETRY_JOB, deliverDue, removeOldDeliveries } from './deliveries.ts';
import { queueWeeklyDigests } from './digest.ts';

export const WEEKLY_DIGEST_JOB = 'slack-weekly-digest';

/**
 * Deliveries are sent by one sweep (deliverDue), run by two queues: `integration-deliveries`, woken
 * by a committed outbox row (wake.ts) and every minute as a safety net, and
 * `integration-delivery-retries`, the retries a failure schedules for later. The first is
 * `stately` — one sweep waiting, one running — so a burst of events cannot pile up wake-ups, and a
 * retry deferred for hours, kept in the second, never holds a wake-up back.
 */
export const integrationJobs = (context: Pick<AppContext, 'config' | 'clock'>): JobDefinition[] => {
  const sweep: JobDefinition['handler'] = async (_data, { db, jobs, logger }) => {
    await deliverDue({ config: context.config, clock: context.clock, db, jobs, logger });
  };
  return [
    {
      name: DELIVERY_JOB,
      cron: '* * * * *',
      // A failed sweep leaves its deliveries pending with their own schedule: no queue-level retry.
      queue: { retryLimit: 0, policy: 'stately', notify: true },
      handler: sweep,
    },
    { name: DELIVERY_RETRY_JOB, queue: { retryLimit: 0 }, handler: sweep },
    {
      name: 'integration-deliveries-cleanup',
      cron: '43 3 * * *',
      handler: async (_data, { db }) => {
        await removeOldDeliveries(db, context.clock.now());
      },
    },
    {
      name: WEEKLY_DIGEST_JOB,
      // Mondays at 09:00 UTC; not retried, so that a partial failure never posts a digest twice.
      cron: '0 9 * * 1',
      queue: { retryLimit: 0 },
      handler: async (_data, { db, jobs }) => {
        await queueWeeklyDigests({ db, clock: context.clock });
        await jobs.send(DELIVERY_JOB);
      },
    },
  ];
};
