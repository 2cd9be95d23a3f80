import { doublePrecision, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns.ts';
import { videos } from './library.ts';

/** Highlights of a video: a titled time range. */
export const clips = pgTable(
  'clips',
  {
    id: id(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    startTime: doublePrecision('start_time').notNull(),
    endTime: doublePrecision('end_time').notNull(),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('clips_video_id_idx').on(table.videoId, table.startTime)],
);

/** Links that open one video to people outside the organization. The token is stored hashed. */
export const shareLinks = pgTable(
  'share_links',
  {
    id: id(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** argon2id of the link's password, when it has one. */
    passwordHash: text('password_hash'),
    expiresAt: timestamptz('expires_at'),
    maxViews: integer('max_views'),
    viewCount: integer('view_count').notNull().default(0),
    allowedEmailDomains: text('allowed_email_domains').array(),
    revokedAt: timestamptz('revoked_at'),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('share_links_token_hash_key').on(table.tokenHash),
    index('share_links_video_id_idx').on(table.videoId),
  ],
);
