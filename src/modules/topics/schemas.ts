import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { aiScopeFields } from '../ai/schemas.ts';

export const TOPIC_SORTS = ['-videoCount', 'name', '-lastDiscussedAt'] as const;
export type TopicSort = (typeof TOPIC_SORTS)[number];

export const listTopicsQuery = paginationQuery.extend({
  organizationId: aiScopeFields.organizationId,
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'Only topics whose name contains this text (any case).', example: 'pric' }),
  sort: z.enum(TOPIC_SORTS).default('-videoCount').meta({
    description:
      '`-videoCount` (default: most meetings first, then most mentions), `name`, or `-lastDiscussedAt` (most recent first).',
  }),
});

export type ListTopicsQuery = z.output<typeof listTopicsQuery>;

export const topicSchema = z
  .object({
    id: uuid(),
    name: z.string(),
    keywords: z.array(z.string()).meta({ description: 'Words said alongside it, most telling first.' }),
    videoCount: z.int().meta({ description: 'Meetings that discuss it, deleted ones excluded.' }),
    mentions: z.int().meta({ description: 'How many times those meetings say it.' }),
    firstDiscussedAt: timestamp().meta({ description: 'The date of the first of those meetings.' }),
    lastDiscussedAt: timestamp().meta({ description: 'The date of the latest of those meetings.' }),
  })
  .meta({ id: 'Topic' });

export type TopicView = z.output<typeof topicSchema>;
