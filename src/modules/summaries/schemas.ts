import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { aiScopeFields, citationSchema } from '../ai/schemas.ts';

/**
 * What every decision, action item and question carries: its meeting and the moment it was said.
 * Shared by the summaries (and insights): one shape wherever an item is shown.
 */
const momentFields = {
  id: uuid(),
  videoId: uuid(),
  videoTitle: z.string(),
  date: timestamp().meta({
    description: "The meeting's date: when it was recorded, else when it was added.",
  }),
  start: z.number().meta({ description: 'Seconds into the video where it is said: a deep link.' }),
  end: z.number(),
  speaker: z.string().nullable(),
  text: z.string().meta({ description: "The transcript's words, verbatim." }),
};

export const decisionSchema = z.object(momentFields).meta({ id: 'Decision' });

export const actionItemSchema = z
  .object({
    ...momentFields,
    owner: z.string().nullable().meta({ description: 'Who is to do it, when the meeting says so.' }),
    dueDate: z.iso
      .date()
      .nullable()
      .meta({ description: 'By when (YYYY-MM-DD), when the meeting says so.', example: '2026-11-27' }),
  })
  .meta({ id: 'ActionItem' });

export const openQuestionSchema = z.object(momentFields).meta({
  id: 'OpenQuestion',
  description: 'A question asked in a meeting that no later turn of it answered.',
});

export type DecisionView = z.output<typeof decisionSchema>;
export type ActionItemView = z.output<typeof actionItemSchema>;
export type OpenQuestionView = z.output<typeof openQuestionSchema>;

/** A topic as a set of meetings discusses it. */
export const meetingTopicSchema = z
  .object({
    id: uuid(),
    name: z.string(),
    videoCount: z.int().meta({ description: 'How many of these meetings discuss it.' }),
    mentions: z.int().meta({ description: 'How many times these meetings say it.' }),
  })
  .meta({ id: 'MeetingTopic' });

export type MeetingTopicView = z.output<typeof meetingTopicSchema>;

const organizationId = aiScopeFields.organizationId;

export const dailyQuery = z.object({
  organizationId,
  date: z.iso
    .date('must be a date YYYY-MM-DD')
    .optional()
    .meta({ description: 'The day (UTC). Default: today (UTC).', example: '2026-11-20' }),
});

export const dailySummarySchema = z
  .object({
    date: z.iso.date(),
    organizationId: uuid(),
    summary: z.string().meta({ description: 'A short paragraph composed from the rest of the response.' }),
    videos: z.array(
      z.object({
        id: uuid(),
        title: z.string(),
        date: timestamp(),
        durationSeconds: z.number().nullable(),
        knowledgeStatus: z.string().nullable().meta({
          description:
            "State of the meeting's knowledge extraction: pending, ready, failed or over_budget; null when none was asked for (no transcript).",
        }),
        summary: z
          .string()
          .nullable()
          .meta({ description: "The meeting's extracted summary; null until its knowledge is ready." }),
      }),
    ),
    decisions: z.array(decisionSchema),
    actionItems: z.array(actionItemSchema),
    openQuestions: z.array(openQuestionSchema),
    topics: z
      .array(meetingTopicSchema)
      .meta({ description: "The day's topics, most discussed first (≤ 20)." }),
    stats: z.object({
      videos: z.int(),
      totalDurationSeconds: z.number(),
      decisions: z.int(),
      actionItems: z.int(),
      openQuestions: z.int(),
      speakers: z.int().meta({ description: "Different speakers in the day's transcripts." }),
    }),
  })
  .meta({ id: 'DailySummary' });

export type DailyQuery = z.output<typeof dailyQuery>;
export type DailySummaryView = z.output<typeof dailySummarySchema>;

export const meetingPrepBody = z
  .object({
    organizationId,
    seriesId: uuid()
      .optional()
      .meta({ description: 'A series of the organization: its latest 5 occurrences.' }),
    videoIds: aiScopeFields.videoIds.meta({ description: 'Videos of the organization (≤ 50).' }),
    topicIds: z
      .array(uuid())
      .min(1, 'must name at least one topic')
      .max(20, 'must name at most 20 topics')
      .optional()
      .meta({ description: 'Topics of the organization: the latest 5 meetings that discuss them.' }),
    query: z
      .string()
      .trim()
      .min(3, 'must be at least 3 characters')
      .max(1000, 'must be at most 1000 characters')
      .optional()
      .meta({
        description:
          'What the meeting is about. Alone, it finds the previous meetings (the 5 whose passages answer it best); ' +
          'with other fields it is answered from their meetings.',
        example: 'pricing of the enterprise plan',
      }),
  })
  .refine((body) => body.seriesId || body.videoIds || body.topicIds || body.query, {
    message: 'must name a seriesId, videoIds, topicIds or a query',
  });

export type MeetingPrepInput = z.output<typeof meetingPrepBody>;

export const meetingPrepSchema = z
  .object({
    organizationId: uuid(),
    summary: z.string().meta({ description: 'A briefing; `[n]` markers refer to `citations[].source`.' }),
    previousMeetings: z
      .array(z.object({ id: uuid(), title: z.string(), date: timestamp(), summary: z.string().nullable() }))
      .meta({ description: 'Newest first.' }),
    decisions: z.array(decisionSchema),
    openActionItems: z.array(actionItemSchema).meta({
      description:
        'Every action item of those meetings, earliest due first: nothing tracks completion yet, so all count as open.',
    }),
    openQuestions: z.array(openQuestionSchema),
    suggestedAgenda: z.array(
      z.object({
        title: z.string(),
        reason: z.string().meta({ description: 'Why it is on the agenda; may carry `[n]` markers.' }),
        citations: z
          .array(z.int())
          .meta({ description: 'The `[n]` numbers (`citations[].source`) of the moments behind it.' }),
      }),
    ),
    citations: z.array(citationSchema),
  })
  .meta({ id: 'MeetingPrep' });

export type MeetingPrepView = z.output<typeof meetingPrepSchema>;

export const topicSummarySchema = z
  .object({
    topic: z.object({ id: uuid(), name: z.string(), keywords: z.array(z.string()) }),
    summary: z
      .string()
      .meta({ description: 'A few sentences; `[n]` markers refer to `citations[].source`.' }),
    keyPoints: z
      .array(
        z.object({ text: z.string(), source: z.int().meta({ description: 'Its `citations[].source`.' }) }),
      )
      .meta({ description: 'Sentences of the meetings about the topic, verbatim, each with its citation.' }),
    decisions: z.array(decisionSchema).meta({ description: 'Decisions about the topic, oldest first.' }),
    timeline: z
      .array(
        z.object({
          videoId: uuid(),
          title: z.string(),
          date: timestamp(),
          mentions: z.int(),
          firstStart: z
            .number()
            .meta({ description: 'Seconds into the video where the topic first comes up.' }),
        }),
      )
      .meta({ description: 'The meetings that discuss the topic, oldest first (the latest 100).' }),
    citations: z.array(citationSchema),
  })
  .meta({ id: 'TopicSummary' });

export type TopicSummaryView = z.output<typeof topicSummarySchema>;
