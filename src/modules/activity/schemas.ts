import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';

const filterText = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const activityQuery = paginationQuery
  .extend({
    organizationId: uuid()
      .optional()
      .meta({ description: 'Only this organization (you must belong to it). Default: all of yours.' }),
    actorId: uuid().optional().meta({ description: 'Only events by this user.' }),
    action: filterText.optional().meta({ description: 'Exact action, e.g. `video.created`.' }),
    targetType: filterText.optional().meta({ description: 'Exact target type, e.g. `video`.' }),
    from: timestamp().optional().meta({ description: 'Events at or after this instant.' }),
    to: timestamp().optional().meta({ description: 'Events at or before this instant.' }),
  })
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  });

export type ActivityQuery = z.infer<typeof activityQuery>;

export const activityEventSchema = z
  .object({
    id: uuid(),
    organizationId: uuid().nullable().meta({ description: 'Null for events about your own account.' }),
    actorId: uuid().nullable(),
    actor: z
      .object({ id: uuid(), name: z.string() })
      .nullable()
      .meta({ description: 'Null when nobody acted (an anonymous request) or the user is gone.' }),
    action: z.string().meta({ example: 'video.created' }),
    targetType: z.string().meta({ example: 'video' }),
    targetId: uuid().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    createdAt: timestamp(),
  })
  .meta({ id: 'ActivityEvent' });

export const activityPage = paginated(activityEventSchema);

export const activityStatsQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(365)
    .default(30)
    .meta({ description: 'Today (UTC) and the days before it, 1–365.' }),
  organizationId: uuid()
    .optional()
    .meta({ description: 'Only this organization (you must belong to it). Default: all of yours.' }),
});

export type ActivityStatsQuery = z.infer<typeof activityStatsQuery>;

export const activityStatsSchema = z
  .object({
    days: z.number().int(),
    totals: z.record(z.string(), z.number().int()).meta({ description: 'Events per action.' }),
    perDay: z
      .array(z.object({ date: z.string().meta({ example: '2026-11-21' }), count: z.number().int() }))
      .meta({ description: 'Every day of the range, oldest first, days without events included.' }),
    activeUsers: z.number().int().meta({ description: 'Distinct users who acted.' }),
    topContributors: z
      .array(z.object({ userId: uuid(), name: z.string().nullable(), count: z.number().int() }))
      .meta({ description: 'The five users with the most events; name is null for a deleted user.' }),
  })
  .meta({ id: 'ActivityStats' });
