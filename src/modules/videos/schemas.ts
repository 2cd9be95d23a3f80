import { z } from 'zod';
import { transcriptStatuses, type videos } from '../../db/schema/index.ts';
import { EXAMPLE_ID, uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { paginationQuery } from '../../http/pagination.ts';
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
    transcriptStatus: z.enum(transcriptStatuses).meta({
      description:
        '`none` (no transcript), `queued` or `processing` (a stored recording being transcribed), `ready`, ' +
        '`failed` (see `transcriptError`; PUT /videos/{id}/transcript still works).',
    }),
    transcriptError: z.string().nullable().meta({ description: 'Why the last transcription failed.' }),
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

/**
 * A video as lists carry it: a transcript can run to 25 MiB, so lists say whether there is one and
 * leave the text to `GET /videos/{id}` or the transcript route — unless asked (`include=transcript`).
 */
export const videoListItemSchema = videoSchema
  .omit({ transcript: true })
  .extend({
    hasTranscript: z.boolean(),
    transcript: z.string().nullable().optional().meta({ description: 'Only with `include=transcript`.' }),
  })
  .meta({ id: 'VideoListItem' });

export type VideoListItem = z.output<typeof videoListItemSchema>;

/** The query field of every video list that asks for the full text too. */
export const listInclude = {
  include: z
    .enum(['transcript'])
    .optional()
    .meta({ description: '`transcript` adds each video’s full transcript (lists leave it out by default).' }),
};
export type ListInclude = { include?: 'transcript' | undefined };

/** A page of another resource's videos (a channel's, a series'). */
export const videoListQuery = paginationQuery.extend(listInclude);

type VideoRow = typeof videos.$inferSelect;

/** The Video a response carries: the row's public fields only (never its collection position). */
export const toVideoView = (row: VideoRow): VideoView => ({
  id: row.id,
  title: row.title,
  description: row.description,
  duration: row.duration,
  durationSeconds: row.durationSeconds,
  thumbnailUrl: row.thumbnailUrl,
  videoUrl: row.videoUrl,
  authorId: row.authorId,
  organizationId: row.organizationId,
  channelId: row.channelId,
  collectionId: row.collectionId,
  seriesId: row.seriesId,
  transcript: row.transcript,
  transcriptStatus: row.transcriptStatus,
  transcriptError: row.transcriptError,
  aiSummary: row.aiSummary,
  viewCount: row.viewCount,
  isPublic: row.isPublic,
  isDeleted: row.isDeleted,
  deletedAt: row.deletedAt,
  retentionUntil: row.retentionUntil,
  recordedAt: row.recordedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const optionalText = (max: number) => text(max).nullable().optional();
const reference = (what: string) =>
  uuid()
    .nullable()
    .optional()
    .meta({ description: `A ${what} of the same organization; null for none.` });

/** Fields a video is created with and may change later (everything but its organization). */
const editableFields = {
  title: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
  duration: z
    .string()
    .min(1, 'must be at least 1 character')
    .max(100, 'must be at most 100 characters')
    .meta({
      description:
        'As the client states it; `754`, `754s`, `12:34`, `1:02:03` and `PT1H2M3S` give durationSeconds.',
      example: '12:34',
    }),
  description: optionalText(10_000),
  thumbnailUrl: optionalText(2048),
  videoUrl: optionalText(2048),
  transcript: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'Plain text, speaker-labelled text (`Alice: …`), WebVTT or SRT; up to 25 MiB.' }),
  aiSummary: optionalText(100_000),
  channelId: reference('channel'),
  collectionId: reference('collection (the video is appended at its end)'),
  seriesId: reference('series'),
  isPublic: z.boolean().optional().meta({ description: 'Readable without signing in. Default false.' }),
  recordedAt: timestamp().nullable().optional().meta({ description: 'When the meeting took place.' }),
};

export const createVideoBody = z.object({ ...editableFields, organizationId: uuid() }).meta(
  requestExample('A meeting with its transcript', {
    title: 'Weekly product sync',
    duration: '32:10',
    organizationId: EXAMPLE_ID,
    transcript:
      'Ada: We ship search v2 behind a flag on January 30.\nGrace: I will write the release notes by Friday.',
    recordedAt: '2026-11-20T10:00:00.000Z',
  }),
);
export type CreateVideoInput = z.output<typeof createVideoBody>;

export const updateVideoBody = z
  .object({
    ...editableFields,
    title: editableFields.title.optional(),
    duration: editableFields.duration.optional(),
  })
  .meta(
    requestExample('Rename and unfile', {
      title: 'Weekly product sync (notes added)',
      isPublic: false,
      channelId: null,
    }),
  );
export type UpdateVideoInput = z.output<typeof updateVideoBody>;

export const VIDEO_SORTS = ['-createdAt', 'createdAt', 'title', '-viewCount'] as const;
export type VideoSort = (typeof VIDEO_SORTS)[number];

const organizationFilter = uuid()
  .optional()
  .meta({ description: "One of the caller's organizations; all of them when absent." });

export const listVideosQuery = paginationQuery.extend({
  ...listInclude,
  organizationId: organizationFilter,
  channelId: uuid().optional(),
  collectionId: uuid().optional(),
  seriesId: uuid().optional(),
  authorId: uuid().optional(),
  isPublic: z.stringbool().optional(),
  sort: z.enum(VIDEO_SORTS).default('-createdAt').meta({ description: 'Newest first by default.' }),
});
export type ListVideosQuery = z.output<typeof listVideosQuery>;

export const listDeletedVideosQuery = paginationQuery.extend({
  ...listInclude,
  organizationId: organizationFilter,
});
export type ListDeletedVideosQuery = z.output<typeof listDeletedVideosQuery>;

export const deleteVideoQuery = z.object({
  permanent: z
    .stringbool()
    .default(false)
    .meta({ description: 'Remove the video for good instead of moving it to the deleted videos.' }),
});

export const permanentlyDeletedSchema = z.object({ id: uuid(), deleted: z.literal(true) });

export const recordViewBody = z
  .object({
    position: z.number().min(0, 'must be at least 0').optional().meta({
      description: "Seconds into the video where the viewer is; kept as the viewer's watch position.",
    }),
  })
  .default({});

export const viewResultSchema = z
  .object({
    videoId: uuid(),
    viewCount: z.number().int(),
    counted: z
      .boolean()
      .meta({ description: 'False when this viewer was already counted in the last 30 minutes.' }),
    position: z.number().nullable().meta({ description: "The viewer's stored watch position in seconds." }),
  })
  .meta({ id: 'VideoView' });
