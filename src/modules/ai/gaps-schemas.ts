import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { GAP_TYPES } from './gaps-rules.ts';

const organizationId = uuid()
  .optional()
  .meta({ description: 'The organization (you must belong to it). Default: your default organization.' });

/** The longest look back: ten years, as an organization's retention (an old meeting keeps its gaps). */
const MAX_DAYS = 3650;

const days = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_DAYS)
    .default(fallback)
    .meta({ description: `How far back to look, 1–${MAX_DAYS} days (default ${fallback}).` });

export const gapsQuery = paginationQuery.extend({
  organizationId,
  type: z.enum(GAP_TYPES).optional().meta({ description: 'Only gaps of this type.' }),
  days: days(90),
  minSeverity: z.enum(['high', 'medium', 'low']).default('medium').meta({
    description:
      'Only gaps at least this severe (default medium: a question asked once or a decision a month old is low; `low` lists everything).',
  }),
});

export type GapsQuery = z.infer<typeof gapsQuery>;

export const gapEvidenceSchema = z
  .object({
    text: z.string().meta({ description: 'The words: said in a meeting, or the question as asked.' }),
    videoId: uuid()
      .nullable()
      .meta({ description: 'The meeting; null for a question asked through QA or chat.' }),
    videoTitle: z.string().nullable(),
    start: z.number().nullable().meta({ description: 'Seconds into the video: a deep link.' }),
    end: z.number().nullable(),
    speaker: z.string().nullable(),
    at: timestamp().meta({ description: "The meeting's date, or when the question was asked." }),
  })
  .meta({ id: 'GapEvidence' });

export const gapSchema = z
  .object({
    id: uuid().meta({ description: 'Stable across calls while the knowledge behind the gap stays.' }),
    type: z.enum(GAP_TYPES).meta({
      description:
        'unanswered_question: asked through QA or chat, not answered (or with confidence < 0.35). ' +
        'open_question: raised in meetings, answered neither there nor later. decision_without_owner: ' +
        'no action item with an owner about it in its meeting. stale_decision: 90+ days old and never ' +
        'discussed since. undocumented_topic: discussed often but never centrally nor decided, or asked ' +
        'about while hardly any meeting covers it.',
    }),
    title: z.string(),
    description: z.string().meta({ description: 'Why it is a gap, in words.' }),
    severity: z.enum(['high', 'medium', 'low']),
    occurrences: z.int().meta({ description: 'Times asked, raised or discussed.' }),
    evidence: z.array(gapEvidenceSchema).meta({ description: 'Up to 5 occurrences, newest first.' }),
    firstSeenAt: timestamp(),
    lastSeenAt: timestamp(),
  })
  .meta({ id: 'KnowledgeGap' });

export const gapsPage = paginated(gapSchema);

export const conflictsQuery = z.object({ organizationId, days: days(365) });

export type ConflictsQuery = z.infer<typeof conflictsQuery>;

export const conflictStatementSchema = z
  .object({
    text: z.string().meta({ description: 'Verbatim: a decision, or the answer to a question.' }),
    videoId: uuid(),
    videoTitle: z.string(),
    start: z.number().meta({ description: 'Seconds into the video: a deep link.' }),
    speaker: z.string().nullable(),
    date: timestamp().meta({ description: "The meeting's date." }),
  })
  .meta({ id: 'ConflictStatement' });

export const conflictSchema = z
  .object({
    id: uuid().meta({ description: 'Stable across calls while the statements stay the same.' }),
    subject: z.string().meta({ description: 'The words the statements share.', example: 'launch beta' }),
    kind: z.enum(['contradiction', 'superseded']).meta({
      description:
        'contradiction: one negates what the other affirms, or one meeting names two values. ' +
        'superseded: a later meeting named another value (option, date, number); the last statement stands.',
    }),
    confidence: z.number().min(0).max(1),
    statements: z.array(conflictStatementSchema).meta({ description: 'Oldest first, newest last.' }),
  })
  .meta({ id: 'KnowledgeConflict' });

export const conflictsSchema = z.object({ data: z.array(conflictSchema) });
