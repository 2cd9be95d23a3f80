import { z } from 'zod';

export const liveness = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    uptimeSeconds: z.number().meta({ description: 'Seconds since this process started.' }),
  })
  .meta({ id: 'Health' });

const checkState = z.enum(['ok', 'fail']);

export const readiness = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    checks: z.object({
      database: checkState.meta({ description: 'A query round-trip to PostgreSQL.' }),
      migrations: checkState.meta({ description: 'Every migration of this build is applied.' }),
      jobs: checkState.meta({ description: 'The background job queue is running.' }),
    }),
  })
  .meta({ id: 'Readiness' });

export type Readiness = z.infer<typeof readiness>;
