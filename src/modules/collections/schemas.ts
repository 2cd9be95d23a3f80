import { z } from 'zod';
import { EXAMPLE_ID, uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { videoSchema } from '../videos/schemas.ts';

export const COLLECTION_TYPES = ['folder', 'playlist'] as const;

const collectionType = z
  .enum(COLLECTION_TYPES)
  .meta({ description: '`folder`: simple grouping; `playlist`: ordered, with per-user progress.' });
const nameField = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const descriptionField = z.string().max(5000, 'must be at most 5000 characters');
const thumbnailUrlField = z.string().max(2048, 'must be at most 2048 characters');

export const createCollectionBody = z
  .object({
    name: nameField,
    organizationId: uuid(),
    description: descriptionField.nullish(),
    thumbnailUrl: thumbnailUrlField.nullish(),
    type: collectionType.nullish().meta({ description: 'Absent or null: `folder`.' }),
    isPublic: z.boolean().nullish().meta({ description: 'Absent or null: false.' }),
  })
  .meta(requestExample('A playlist', { name: 'Onboarding', organizationId: EXAMPLE_ID, type: 'playlist' }));

/** In PATCH, null leaves `name` and `isPublic` unchanged and clears `description` and `thumbnailUrl`. */
export const updateCollectionBody = z.object({
  name: nameField.nullish().meta({ description: 'null or absent: unchanged.' }),
  description: descriptionField.nullish().meta({ description: 'null clears it; absent: unchanged.' }),
  thumbnailUrl: thumbnailUrlField.nullish().meta({ description: 'null clears it; absent: unchanged.' }),
  isPublic: z.boolean().nullish().meta({ description: 'null or absent: unchanged.' }),
});

export const listCollectionsQuery = paginationQuery.extend({
  type: collectionType.optional(),
  organizationId: uuid()
    .optional()
    .meta({ description: 'Only this organization; without it, every organization the caller belongs to.' }),
});

const collectionFields = {
  id: uuid(),
  name: z.string(),
  description: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
  organizationId: uuid(),
  type: collectionType,
  isPublic: z.boolean(),
  videoCount: z.number().int().meta({ description: 'Videos in the collection, not counting deleted ones.' }),
  createdBy: uuid().nullable().meta({ description: 'The creator; null once that account is deleted.' }),
  createdAt: timestamp(),
  updatedAt: timestamp(),
};

export const collectionSchema = z.object(collectionFields).meta({ id: 'Collection' });

export const collectionWithVideosSchema = z
  .object({
    ...collectionFields,
    videos: z.array(videoSchema).meta({ description: 'In playlist order; deleted videos left out.' }),
  })
  .meta({ id: 'CollectionWithVideos' });

export type CollectionView = z.output<typeof collectionSchema>;
export type CollectionWithVideosView = z.output<typeof collectionWithVideosSchema>;

export const deletedCollectionSchema = z.object({ id: uuid(), deleted: z.literal(true) });

export const collectionVideoParams = z.object({ id: uuid(), videoId: uuid() });

export const addVideoBody = z.object({
  videoId: uuid(),
  position: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .optional()
    .meta({ description: 'Zero-based place in the collection; absent: at the end.' }),
});

export const reorderVideosBody = z.object({
  videoIds: z
    .array(uuid())
    .max(10_000)
    .meta({ description: 'Every video of the collection, each once, in the new order.' }),
});

export const progressBody = z
  .object({
    completed: z
      .boolean()
      .optional()
      .meta({ description: 'true marks the video completed; false un-marks it (needs `videoId`).' }),
    videoId: uuid()
      .optional()
      .meta({ description: 'A video of the playlist; absent: the current video (first not completed).' }),
    position: z
      .number()
      .min(0, 'must be at least 0')
      .optional()
      .meta({ description: 'Seconds into the video where the viewer is.' }),
  })
  .refine((body) => body.completed !== false || body.videoId !== undefined, {
    message: 'is required to un-mark a video',
    path: ['videoId'],
  });

export type ProgressInput = z.output<typeof progressBody>;

export const progressSchema = z
  .object({
    collectionId: uuid(),
    userId: uuid(),
    totalCount: z.number().int().meta({ description: 'Videos in the playlist (deleted ones left out).' }),
    completedCount: z.number().int(),
    percentComplete: z
      .number()
      .meta({ description: 'completedCount / totalCount × 100, rounded to one decimal; 0 when empty.' }),
    completedVideoIds: z.array(uuid()).meta({ description: 'In playlist order.' }),
    currentVideoId: uuid()
      .nullable()
      .meta({ description: 'The first video in playlist order not completed; null when all are.' }),
    lastVideoId: uuid()
      .nullable()
      .meta({ description: 'The video last watched or completed; null when it left the playlist.' }),
    lastPosition: z.number().nullable().meta({ description: 'Seconds into `lastVideoId`.' }),
    updatedAt: timestamp().nullable().meta({ description: 'Last progress change; null before the first.' }),
  })
  .meta({ id: 'PlaylistProgress' });

export type ProgressView = z.output<typeof progressSchema>;
