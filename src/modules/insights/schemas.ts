import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';

export const INSIGHT_PERIODS = ['7d', '30d', '90d'] as const;
export type InsightPeriod = (typeof INSIGHT_PERIODS)[number];

const organizationId = uuid()
  .optional()
  .meta({ description: 'The organization (you must belong to it). Default: your default organization.' });

const period = z.enum(INSIGHT_PERIODS).default('30d').meta({
  description:
    'The current period: the last 7, 30 or 90 days up to now; compared with the equally long one before it.',
});

export const periodQuery = z.object({ organizationId, period });

export const recommendationsQuery = z.object({
  organizationId,
  limit: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(50, 'must be at most 50')
    .default(10)
    .meta({ description: 'How many recommendations, 1–50.' }),
});

const periodWindow = z.object({
  start: timestamp(),
  end: timestamp(),
});

const changePercent = z.number().nullable().meta({
  description:
    'round((current − previous) / previous × 100, 1); null when previous is 0: new this period (or absent from both).',
});

const countChange = z.object({ current: z.int(), previous: z.int(), changePercent });

export const topicTrendSchema = z
  .object({
    topic: z.object({ id: uuid(), name: z.string() }),
    current: z
      .int()
      .meta({ description: 'Meetings (live videos, by meeting date) discussing it in the current period.' }),
    previous: z.int().meta({ description: 'The same, in the previous period.' }),
    changePercent,
    buckets: z.array(z.object({ start: timestamp(), count: z.int() })).meta({
      description:
        'The current period by day (7d) or by week (30d, 90d) from its start, zeros included: each bucket ' +
        'runs to the next one’s start (the last to the period’s end, so it may be shorter). Counts sum to `current`.',
    }),
  })
  .meta({ id: 'TopicTrend' });

export const trendsSchema = z
  .object({
    period: z.enum(INSIGHT_PERIODS),
    current: periodWindow.meta({ description: 'now − period … now.' }),
    previous: periodWindow.meta({ description: 'The equally long period just before.' }),
    topics: z.array(topicTrendSchema).meta({
      description:
        'At most 20: most meetings in the current period first, then the largest change (new topics first).',
    }),
    totals: z.object({
      videos: countChange.meta({ description: 'Live videos, by meeting date.' }),
      questionsAsked: countChange.meta({ description: 'Questions asked through QA and chat.' }),
      decisions: countChange.meta({ description: 'Decisions made in live meetings, by meeting date.' }),
    }),
  })
  .meta({ id: 'InsightTrends' });

export type TrendsView = z.infer<typeof trendsSchema>;
export type TopicTrendView = z.infer<typeof topicTrendSchema>;

export const recommendationSchema = z
  .object({
    type: z.enum(['video', 'playlist', 'gap']).meta({
      description:
        'video: a video to watch; playlist: a playlist to resume; gap: a question raised in a meeting that ' +
        'nobody answered, on a topic you know about.',
    }),
    reason: z.string().meta({ example: 'New in #design, a channel you follow' }),
    score: z.number().meta({ description: '0–1: how strongly it is recommended.' }),
    video: z
      .object({
        id: uuid(),
        title: z.string(),
        thumbnailUrl: z.string().nullable(),
        durationSeconds: z.number().nullable(),
      })
      .optional()
      .meta({ description: 'type video.' }),
    collection: z
      .object({
        id: uuid(),
        name: z.string(),
        lastVideoId: uuid()
          .nullable()
          .meta({ description: 'Where you were; null when that video left the playlist.' }),
        lastPosition: z.number().nullable(),
        completed: z.int(),
        total: z.int(),
      })
      .optional()
      .meta({ description: 'type playlist.' }),
    gap: z
      .object({
        text: z.string().meta({ description: 'The question, verbatim.' }),
        videoId: uuid(),
        videoTitle: z.string(),
        start: z.number().meta({ description: 'Seconds into the video where it was asked.' }),
      })
      .optional()
      .meta({ description: 'type gap.' }),
  })
  .meta({ id: 'Recommendation' });

export type RecommendationView = z.infer<typeof recommendationSchema>;

export const recommendationsSchema = z.object({ data: z.array(recommendationSchema) });

export const highlightSchema = z
  .object({
    type: z.enum(['decision', 'most_watched', 'new_topic', 'active_speaker']),
    text: z.string(),
    videoId: uuid().optional(),
    videoTitle: z.string().optional(),
    start: z.number().optional().meta({ description: 'Seconds into the video: a deep link.' }),
    value: z.number().optional().meta({
      description: 'most_watched: views; new_topic: meetings discussing it; active_speaker: seconds spoken.',
    }),
  })
  .meta({ id: 'InsightHighlight' });

export type HighlightView = z.infer<typeof highlightSchema>;

export const overviewSchema = z
  .object({
    period: z.enum(INSIGHT_PERIODS),
    trends: z.array(topicTrendSchema).meta({ description: 'The top 5 topics of `GET /ai/insights/trends`.' }),
    recommendations: z
      .array(recommendationSchema)
      .meta({ description: 'Your top 5 of `GET /ai/insights/recommendations`.' }),
    highlights: z.array(highlightSchema).meta({
      description:
        'In this order: the latest decisions of the period (up to 3), its most watched video, topics first ' +
        'discussed in it (up to 3), and the speaker who spoke the longest in it.',
    }),
  })
  .meta({ id: 'InsightsOverview' });
