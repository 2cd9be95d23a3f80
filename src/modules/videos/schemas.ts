import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';

/** The spec's Video resource (every field, its type and nullability), plus the library's own fields. */
export const videoSchema = z
  .object({
    id: uuid(),
    title: z.string(),
    description: z.string().nullable(),
    duration: z.string(),
    durationSeconds: z
      .number()
      .nullable()
      .meta({ description: 'Seconds, derived from `duration` when its format is known.' }),
    thumbnailUrl: z.string().nullable(),
    videoUrl: z.string().nullable(),
    authorId: uuid(),
    organizationId: uuid(),
    channelId: uuid().nullable(),
    collectionId: uuid().nullable(),
    seriesId: uuid().nullable(),
    transcript: z.string().nullable(),
    aiSummary: z.string().nullable(),
    viewCount: z.number(),
    isPublic: z.boolean(),
    isDeleted: z.boolean(),
    deletedAt: timestamp().nullable(),
    retentionUntil: timestamp().nullable(),
    recordedAt: timestamp().nullable(),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Video' });

export type VideoView = z.output<typeof videoSchema>;
