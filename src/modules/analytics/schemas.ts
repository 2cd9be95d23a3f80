import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginationQuery, paginationSchema } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';

const seconds = (description: string) => z.number().meta({ description: `${description} In seconds.` });

export const analyticsQuery = z.object({
  organizationId: uuid().optional().meta({ description: "Default: the caller's default organization." }),
  from: timestamp().optional().meta({ description: 'Meetings on or after (recordedAt, else createdAt).' }),
  to: timestamp().optional().meta({ description: 'Meetings before.' }),
  seriesId: uuid().optional(),
  channelId: uuid().optional(),
});

export const speakerListQuery = analyticsQuery.extend(paginationQuery.shape);
export const speakerParams = z.object({ speakerId: uuid() });

const metrics = {
  videoCount: z.int().meta({ description: 'Meetings the speaker talks in.' }),
  talkTimeSeconds: seconds("The speaker's segments added up (silence is nobody's)."),
  talkShare: z
    .number()
    .meta({ description: "talkTimeSeconds / everyone's talk time in the same meetings, 0–1." }),
  wordCount: z.int(),
  wordsPerMinute: z.number().meta({ description: 'wordCount / (talkTimeSeconds / 60).' }),
  turns: z.int().meta({ description: "Runs of the speaker's consecutive segments." }),
  longestMonologueSeconds: seconds('The longest turn, first segment start to last segment end.'),
  averageMonologueSeconds: seconds('Turns, on average.'),
  questionCount: z
    .int()
    .meta({ description: 'Questions asked (the question detector of docs/analytics.md).' }),
  interruptions: z
    .int()
    .meta({ description: "Turns that start before the previous speaker's segment ended." }),
  patienceSeconds: seconds('The pause before the speaker answers another, on average (0 when never).'),
};

const speakerIdentity = {
  speakerId: uuid(),
  name: z.string(),
  userId: uuid().nullable().meta({ description: 'The member the speaker is linked to, if any.' }),
};

export const speakerStatsSchema = z.object({ ...speakerIdentity, ...metrics }).meta({ id: 'SpeakerStats' });

export const speakerTotalsSchema = z
  .object({
    speakerCount: z.int(),
    videoCount: z.int(),
    talkTimeSeconds: z.number(),
    wordCount: z.int(),
    turns: z.int(),
    questionCount: z.int(),
    interruptions: z.int(),
  })
  .meta({ id: 'SpeakerTotals' });

export const speakerListSchema = z
  .object({
    data: z.array(speakerStatsSchema).meta({ description: 'Most talk time first.' }),
    pagination: paginationSchema,
    totals: speakerTotalsSchema,
  })
  .meta({ id: 'SpeakerStatsPage' });

export const speakerDetailSchema = z
  .object({
    ...speakerIdentity,
    ...metrics,
    meetings: z
      .array(
        z.object({
          videoId: uuid(),
          title: z.string(),
          date: timestamp(),
          talkTimeSeconds: z.number(),
          talkRatio: z.number().meta({ description: "The speaker's share of the meeting's talk time, 0–1." }),
          wordCount: z.int(),
          turns: z.int(),
          questionCount: z.int(),
          interruptions: z.int(),
        }),
      )
      .meta({ description: 'Per meeting, newest first (the latest 100).' }),
    weekly: z
      .array(
        z.object({
          weekStart: timestamp().meta({ description: 'Monday 00:00 UTC.' }),
          videoCount: z.int(),
          talkTimeSeconds: z.number(),
          wordCount: z.int(),
        }),
      )
      .meta({ description: 'Per ISO week, oldest first.' }),
    topTopics: z
      .array(z.object({ topicId: uuid(), name: z.string(), videoCount: z.int() }))
      .meta({ description: 'Topics of the meetings the speaker talks in, most meetings first (10).' }),
    coSpeakers: z
      .array(z.object({ speakerId: uuid(), name: z.string(), sharedVideos: z.int() }))
      .meta({ description: 'Who the speaker meets most, most shared meetings first (10).' }),
  })
  .meta({ id: 'SpeakerAnalytics' });
