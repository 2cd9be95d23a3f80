import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';

const moment = {
  text: z.string().meta({ description: "Words of the video's transcript, verbatim." }),
  start: z.number().meta({ description: 'Seconds into the video where it was said.' }),
  end: z.number(),
  speaker: z.string().nullable(),
};

export const knowledgeQuoteSchema = z.object(moment).meta({ id: 'KnowledgeQuote' });

export const knowledgeItemSchema = z
  .object({
    id: uuid(),
    kind: z.enum(['decision', 'action_item', 'question']),
    ...moment,
    owner: z.string().nullable().meta({ description: 'Action items: who is to do it, when said.' }),
    dueDate: z.string().nullable().meta({ description: 'Action items: by when (YYYY-MM-DD), when said.' }),
    answered: z.boolean().nullable().meta({ description: 'Questions: whether a later turn answers it.' }),
    answer: knowledgeQuoteSchema.nullable().meta({ description: 'Questions: the answering words.' }),
  })
  .meta({ id: 'KnowledgeItem' });

export const videoKnowledgeSchema = z
  .object({
    videoId: uuid(),
    status: z.enum(['pending', 'ready', 'failed', 'over_budget', 'none']).meta({
      description:
        'pending: being extracted (moments after a transcript is stored or changed); ready; failed (retried ' +
        'automatically); over_budget: the organization had no AI credits left (a transcript change asks again); ' +
        'none: the video has no transcript.',
    }),
    engine: z.string().nullable().meta({ description: 'What extracted it: local or openai.' }),
    extractedAt: timestamp().nullable(),
    summary: z
      .array(knowledgeQuoteSchema)
      .meta({ description: 'A few sentences that say what it was about.' }),
    chapters: z.array(z.object({ title: z.string(), start: z.number(), end: z.number() })),
    decisions: z.array(knowledgeItemSchema),
    actionItems: z.array(knowledgeItemSchema),
    questions: z.array(knowledgeItemSchema),
    topics: z.array(
      z.object({
        id: uuid(),
        name: z.string(),
        mentions: z.int(),
        score: z.number().meta({ description: 'How central to this video, 0–1.' }),
        firstStart: z.number(),
      }),
    ),
  })
  .meta({ id: 'VideoKnowledge' });

export type VideoKnowledgeView = z.output<typeof videoKnowledgeSchema>;
