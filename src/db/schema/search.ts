import { sql } from 'drizzle-orm';
import {
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
import { createdAt, id, updatedAt } from './columns.ts';
import { videos } from './library.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

/*
 * The full-text index lives in `search` columns GENERATED from each searchable table's text
 * (videos, transcript_chunks, clips, comments, channels, series, collections), with GIN indexes,
 * and in trigram indexes for suggestions. They are created by the hand-written migration
 * 0007_search_index.sql and deliberately not declared here: Drizzle would otherwise read the
 * vectors back on every `select()` of those tables.
 */

/**
 * A transcript cut into passages of about 150–300 words that keep speaker turns whole (a turn
 * longer than that is cut at sentence ends): what search ranks and what the AI layer retrieves.
 * Rebuilt with the video's segments. Its rows keep text and vector out of line (toast_tuple_target
 * 128, set by migration 0020, which Drizzle does not declare): search lists a word's passages from
 * narrow rows.
 */
export const transcriptChunks = pgTable(
  'transcript_chunks',
  {
    id: id(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    index: integer('index').notNull(),
    /** The transcript segments the chunk covers, inclusive. */
    firstSegmentIndex: integer('first_segment_index').notNull(),
    lastSegmentIndex: integer('last_segment_index').notNull(),
    startSeconds: doublePrecision('start_seconds').notNull(),
    endSeconds: doublePrecision('end_seconds').notNull(),
    /** Who speaks in it, in order of first words; ids where the label became a speaker. */
    speakerNames: text('speaker_names').array().notNull(),
    speakerIds: uuid('speaker_ids').array().notNull(),
    text: text('text').notNull(),
    wordCount: integer('word_count').notNull(),
  },
  (table) => [
    uniqueIndex('transcript_chunks_video_index_key').on(table.videoId, table.index),
    // Search counts an organization's passages (idf) from this index alone.
    index('transcript_chunks_organization_id_idx').on(table.organizationId),
  ],
);

/**
 * How often each stemmed word (PostgreSQL's english configuration, stop words left out) is said
 * in a video's transcript: what a meeting as a whole is about, for ranking meetings by how likely
 * a question is to be about them (video-terms.ts). And in how many of the video's passages the
 * word stands, speakers' names included: summed over a scope, how many passages hold a word (its
 * idf) without reading them. A name said by no one has a row with no occurrences. Recounted
 * whenever the transcript or its passages are stored.
 */
export const videoTerms = pgTable(
  'video_terms',
  {
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    lexeme: text('lexeme').notNull(),
    occurrences: integer('occurrences').notNull(),
    passages: integer('passages').notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.videoId, table.lexeme] }),
    // A question's words over the whole organization: how often the organization says each and
    // in how many passages, per video, read from the index alone.
    index('video_terms_organization_lexeme_idx').on(
      table.organizationId,
      table.lexeme,
      table.occurrences,
      table.videoId,
      table.passages,
    ),
  ],
);

/**
 * A video's transcript in all, for every video with passages: how many words of `video_terms` it
 * says (its length, stop words left out), how many passages it was cut into and how many words
 * those hold — summed over an organization, the counts ranking needs without reading every passage.
 */
export const videoTermTotals = pgTable(
  'video_term_totals',
  {
    videoId: uuid('video_id')
      .primaryKey()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    occurrences: integer('occurrences').notNull(),
    passages: integer('passages').notNull(),
    passageWords: integer('passage_words').notNull().default(0),
  },
  (table) => [index('video_term_totals_organization_id_idx').on(table.organizationId)],
);

/** What a person searched for, newest first; they can list and clear it. */
export const searchHistory = pgTable(
  'search_history',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    query: text('query').notNull(),
    /** The filters the search was made with (types, channelId, from…). */
    filters: jsonb('filters').$type<Record<string, unknown>>().notNull().default({}),
    resultCount: integer('result_count').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('search_history_user_id_idx').on(table.userId, table.createdAt)],
);

/** A named search a person keeps, in one organization; names are unique per person and organization. */
export const savedSearches = pgTable(
  'saved_searches',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    query: text('query').notNull(),
    filters: jsonb('filters').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('saved_searches_user_organization_name_key').on(
      table.userId,
      table.organizationId,
      sql`lower(${table.name})`,
    ),
  ],
);
