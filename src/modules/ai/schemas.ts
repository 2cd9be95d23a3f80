import { z } from 'zod';
import { EXAMPLE_ID, uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { timestamp } from '../../http/timestamps.ts';

/** Where an AI question looks: one organization, optionally narrowed. */
export const aiScopeFields = {
  organizationId: uuid().optional().meta({
    description: 'The organization asked about (you must belong to it). Default: your default organization.',
  }),
  videoIds: z
    .array(uuid())
    .min(1, 'must name at least one video')
    .max(50, 'must name at most 50 videos')
    .optional()
    .meta({ description: 'Only these videos of the organization.' }),
  channelId: uuid().optional().meta({ description: 'Only videos of this channel.' }),
  seriesId: uuid().optional().meta({ description: 'Only occurrences of this series.' }),
  collectionId: uuid().optional().meta({ description: 'Only videos of this collection.' }),
};

export const qaBody = z
  .object({
    question: z
      .string()
      .trim()
      .min(3, 'must be at least 3 characters')
      .max(1000, 'must be at most 1000 characters')
      .meta({ example: 'What did we decide about the launch date?' }),
    ...aiScopeFields,
  })
  .meta(
    requestExample('Ask why', {
      question: 'Why did search go down on January 14?',
      organizationId: EXAMPLE_ID,
    }),
  );

export type QaInput = z.output<typeof qaBody>;

export const citationSchema = z
  .object({
    source: z.number().int().meta({ description: 'The `[n]` marker in the answer that refers to it.' }),
    videoId: uuid(),
    videoTitle: z.string(),
    heldAt: z.iso
      .datetime()
      .nullable()
      .meta({
        description:
          'When the meeting was held: its recording date, else when the video was added. Null only on an answer ' +
          'stored before citations carried it whose video has since been purged.',
        example: '2026-01-12T09:00:00.000Z',
      }),
    start: z.number().meta({ description: 'Seconds into the video where the quote starts: a deep link.' }),
    end: z.number(),
    speaker: z.string().nullable(),
    quote: z.string().meta({ description: "Words of the video's transcript, verbatim." }),
  })
  .meta({ id: 'Citation' });

export const answerSchema = z
  .object({
    id: uuid(),
    question: z.string(),
    answer: z
      .string()
      .meta({ description: 'Claims carry `[n]` markers that refer to `citations[].source`.' }),
    answered: z.boolean().meta({
      description: 'False when nothing you can access answers the question: the answer then says so.',
    }),
    confidence: z.number().meta({ description: '0–1: how much of the question the cited material covers.' }),
    citations: z.array(citationSchema),
    followUpQuestions: z.array(z.string()).meta({
      description:
        'Up to 3 questions to ask next that the library answers: raised and answered in the cited meetings, sharing a word with yours or raised near a cited moment; those sharing most first, then the nearest.',
    }),
    engine: z.string().meta({ example: 'local' }),
    organizationId: uuid(),
    createdAt: timestamp(),
  })
  .meta({ id: 'Answer' });

export type AnswerView = z.infer<typeof answerSchema>;
