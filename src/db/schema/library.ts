import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

/** Topic or team streams; a video is in at most one. */
export const channels = pgTable(
  'channels',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('channels_organization_id_idx').on(table.organizationId, table.name)],
);

export const channelFollows = pgTable(
  'channel_follows',
  {
    channelId: uuid('channel_id')
      .notNull()
      .references(() => channels.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.channelId, table.userId] }),
    index('channel_follows_user_id_idx').on(table.userId),
  ],
);

export const CADENCES = ['weekly', 'biweekly', 'monthly', 'adhoc'] as const;

/** Recurring meetings ("Weekly product sync"); a video is at most one occurrence of one series. */
export const series = pgTable(
  'series',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    cadence: text('cadence').$type<(typeof CADENCES)[number]>().notNull().default('adhoc'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('series_organization_id_idx').on(table.organizationId, table.name),
    check('series_cadence_check', sql`${table.cadence} IN ('weekly', 'biweekly', 'monthly', 'adhoc')`),
  ],
);

/** Folders (grouping) and playlists (ordered, with per-user progress). */
export const collections = pgTable(
  'collections',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    thumbnailUrl: text('thumbnail_url'),
    type: text('type').$type<'folder' | 'playlist'>().notNull().default('folder'),
    isPublic: boolean('is_public').notNull().default(false),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('collections_organization_id_idx').on(table.organizationId, table.createdAt),
    check('collections_type_check', sql`${table.type} IN ('folder', 'playlist')`),
  ],
);

export const transcriptStatuses = ['none', 'queued', 'processing', 'ready', 'failed'] as const;
export type TranscriptStatus = (typeof transcriptStatuses)[number];

export const videos = pgTable(
  'videos',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Kept (without a foreign key) when the author's account is deleted: the video stays theirs on record. */
    authorId: uuid('author_id').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    /** As given by the client; `durationSeconds` is derived from it when the format is known. */
    duration: text('duration').notNull(),
    durationSeconds: doublePrecision('duration_seconds'),
    thumbnailUrl: text('thumbnail_url'),
    videoUrl: text('video_url'),
    /** The transcript as uploaded; its parsed form is `transcript_segments`. */
    transcript: text('transcript'),
    /** Where the transcript stands: none, queued or processing (a recording being transcribed), ready, failed. */
    transcriptStatus: text('transcript_status').$type<TranscriptStatus>().notNull().default('none'),
    /** Why the last transcription failed, for people to read. */
    transcriptError: text('transcript_error'),
    aiSummary: text('ai_summary'),
    viewCount: integer('view_count').notNull().default(0),
    isPublic: boolean('is_public').notNull().default(false),
    isDeleted: boolean('is_deleted').notNull().default(false),
    deletedAt: timestamptz('deleted_at'),
    retentionUntil: timestamptz('retention_until'),
    channelId: uuid('channel_id').references(() => channels.id, { onDelete: 'set null' }),
    seriesId: uuid('series_id').references(() => series.id, { onDelete: 'set null' }),
    collectionId: uuid('collection_id').references(() => collections.id, { onDelete: 'set null' }),
    /** Order within the collection (playlists play in this order). */
    collectionPosition: integer('collection_position'),
    recordedAt: timestamptz('recorded_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('videos_organization_created_idx').on(table.organizationId, table.createdAt),
    check(
      'videos_transcript_status_check',
      sql`${table.transcriptStatus} IN ('none', 'queued', 'processing', 'ready', 'failed')`,
    ),
    index('videos_organization_title_idx').on(table.organizationId, table.title),
    index('videos_organization_views_idx').on(table.organizationId, table.viewCount),
    index('videos_author_id_idx').on(table.authorId),
    index('videos_channel_id_idx').on(table.channelId),
    index('videos_series_id_idx').on(table.seriesId, table.recordedAt),
    index('videos_collection_idx').on(table.collectionId, table.collectionPosition),
    index('videos_retention_until_idx').on(table.retentionUntil).where(sql`${table.isDeleted}`),
  ],
);

/** People who speak in an organization's recordings, created from transcript labels. */
export const speakers = pgTable(
  'speakers',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** lower(trim(name)): "Alice" and "alice " are one speaker. */
    normalizedName: text('normalized_name').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('speakers_organization_name_key').on(table.organizationId, table.normalizedName)],
);

/** A transcript as timed segments, one speaker turn (or subtitle cue) each. */
export const transcriptSegments = pgTable(
  'transcript_segments',
  {
    id: id(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    index: integer('index').notNull(),
    startSeconds: doublePrecision('start_seconds').notNull(),
    endSeconds: doublePrecision('end_seconds').notNull(),
    speakerId: uuid('speaker_id').references(() => speakers.id, { onDelete: 'set null' }),
    speakerLabel: text('speaker_label'),
    text: text('text').notNull(),
  },
  (table) => [
    uniqueIndex('transcript_segments_video_index_key').on(table.videoId, table.index),
    index('transcript_segments_speaker_id_idx').on(table.speakerId),
  ],
);

/** One row per viewer and video: the last counted view (one per 30 minutes) and where they are. */
export const videoViewers = pgTable(
  'video_viewers',
  {
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    /** A user id, or a hash of an anonymous viewer's address for public videos. */
    viewerKey: text('viewer_key').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    lastCountedAt: timestamptz('last_counted_at').notNull(),
    position: doublePrecision('position'),
    updatedAt: updatedAt(),
  },
  (table) => [
    primaryKey({ columns: [table.videoId, table.viewerKey] }),
    index('video_viewers_user_id_idx').on(table.userId),
  ],
);

/** Per user and playlist: where they are. Completions are rows of their own, so concurrent updates never lose one. */
export const playlistProgress = pgTable(
  'playlist_progress',
  {
    collectionId: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    lastVideoId: uuid('last_video_id').references(() => videos.id, { onDelete: 'set null' }),
    lastPosition: doublePrecision('last_position'),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.collectionId, table.userId] })],
);

export const playlistCompletions = pgTable(
  'playlist_completions',
  {
    collectionId: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    completedAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.collectionId, table.userId, table.videoId] })],
);
