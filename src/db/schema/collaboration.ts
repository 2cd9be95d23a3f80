import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns.ts';
import { videos } from './library.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

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

/**
 * Threaded comments on a video, optionally anchored to a second of it. A deleted comment that has
 * replies stays as a tombstone (`deletedAt` set, body erased) so the thread keeps its shape.
 */
export const comments = pgTable(
  'comments',
  {
    id: id(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    /** Null once the author's account is deleted. */
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    /** The comment this one replies to; replies are one level deep (a reply to a reply joins its thread). */
    parentId: uuid('parent_id').references((): AnyPgColumn => comments.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    /** Second of the video the comment is about, when anchored. */
    timestamp: doublePrecision('timestamp_seconds'),
    editedAt: timestamptz('edited_at'),
    deletedAt: timestamptz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('comments_video_id_idx').on(table.videoId, table.createdAt),
    index('comments_parent_id_idx').on(table.parentId),
  ],
);

/** One row per person, emoji and comment: reacting again with the same emoji removes it. */
export const commentReactions = pgTable(
  'comment_reactions',
  {
    commentId: uuid('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    emoji: text('emoji').notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.commentId, table.userId, table.emoji] })],
);

/** Members of the organization mentioned as `@[Name](userId)` in a comment (others are ignored). */
export const commentMentions = pgTable(
  'comment_mentions',
  {
    commentId: uuid('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
  },
  (table) => [primaryKey({ columns: [table.commentId, table.userId] })],
);

/** In-app notifications, one row per recipient. */
export const notifications = pgTable(
  'notifications',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The organization the event happened in; its deletion removes the notification. */
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    body: text('body').notNull(),
    targetType: text('target_type'),
    targetId: uuid('target_id'),
    /** Ids a client needs to open the target (videoId, commentId, timestamp…). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    readAt: timestamptz('read_at'),
    createdAt: createdAt(),
  },
  (table) => [
    index('notifications_user_id_idx').on(table.userId, table.id),
    index('notifications_unread_idx').on(table.userId).where(sql`${table.readAt} is null`),
  ],
);

/** A person's choices per notification type; a missing row means the type's defaults. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    inApp: boolean('in_app').notNull(),
    email: boolean('email').notNull(),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.type] })],
);
