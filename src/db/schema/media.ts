import { sql } from 'drizzle-orm';
import { bigint, check, doublePrecision, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { videos } from './library.ts';

/**
 * The recording a video holds, when the service stores it (one per video). The file lives in the
 * media store under `storage_key`; the row goes with the video (purge), and the file after it.
 */
export const videoMedia = pgTable(
  'video_media',
  {
    videoId: uuid('video_id')
      .primaryKey()
      .references(() => videos.id, { onDelete: 'cascade' }),
    /** Where the media store keeps the file (`<videoId>/<random>.<ext>`): a new upload is a new key. */
    storageKey: text('storage_key').notNull(),
    /** As read from the file's first bytes, never from its name. */
    contentType: text('content_type').notNull(),
    container: text('container'),
    codec: text('codec'),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    durationSeconds: doublePrecision('duration_seconds'),
    /** Hex SHA-256 of the file: its ETag. */
    sha256: text('sha256').notNull(),
    /** Transcription runs of this file so far (the job gives up after its last retry). */
    transcriptionAttempts: integer('transcription_attempts').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [check('video_media_bytes_check', sql`${table.bytes} > 0`)],
);
