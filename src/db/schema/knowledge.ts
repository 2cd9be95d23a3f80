import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
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

/** A moment of a transcript that a summary or an item stands on: the words and when they were said. */
export type KnowledgeQuote = { text: string; start: number; end: number; speaker: string | null };

/** A stretch of a meeting about one thing, titled by what it is about. */
export type Chapter = { title: string; start: number; end: number };

/**
 * What the extraction job made of a video's transcript: its state, summary and chapters. The
 * items it found are `knowledge_items`; its topics `video_topics`.
 */
export const videoKnowledge = pgTable(
  'video_knowledge',
  {
    videoId: uuid('video_id')
      .primaryKey()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** `pending` (queued), `ready`, `failed`, or `over_budget` (the organization had no credits left). */
    status: text('status').notNull(),
    /** The few sentences that say what the meeting was about, each with its moment. */
    summary: jsonb('summary').$type<KnowledgeQuote[]>().notNull().default([]),
    chapters: jsonb('chapters').$type<Chapter[]>().notNull().default([]),
    /** The engine that extracted it (`local`, `openai`). */
    engine: text('engine'),
    error: text('error'),
    /** When the latest extraction was asked for: a job asked for earlier does not overwrite a newer one's result. */
    requestedAt: timestamptz('requested_at').notNull(),
    extractedAt: timestamptz('extracted_at'),
    updatedAt: updatedAt(),
  },
  (table) => [index('video_knowledge_organization_idx').on(table.organizationId, table.status)],
);

/**
 * A decision, action item or question said in a meeting, with who said it and when. Rebuilt with
 * the video's knowledge whenever its transcript changes.
 */
export const knowledgeItems = pgTable(
  'knowledge_items',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    /** `decision`, `action_item` or `question`. */
    kind: text('kind').notNull(),
    /** The words, verbatim from the transcript. */
    text: text('text').notNull(),
    speaker: text('speaker'),
    start: doublePrecision('start').notNull(),
    end: doublePrecision('end').notNull(),
    /** Action items: who is to do it, when the transcript says so. */
    owner: text('owner'),
    /** Action items: by when, when the transcript says so (resolved against the meeting's date). */
    dueDate: date('due_date', { mode: 'string' }),
    /** Questions: whether a later turn of the meeting answers it, and that answer. */
    answered: boolean('answered'),
    answer: jsonb('answer').$type<KnowledgeQuote>(),
    /** The item's stemmed content words, sorted: what it is about, to compare items (conflicts, gaps). */
    subject: text('subject').notNull().default(''),
    createdAt: createdAt(),
  },
  (table) => [
    index('knowledge_items_organization_kind_idx').on(table.organizationId, table.kind),
    index('knowledge_items_video_idx').on(table.videoId, table.start),
    // "What's the status of search v2?" finds the items that say the matter (knowledge-lists.ts):
    // read item by item, 28k items of 1,000 meetings took about 250 ms.
    index('knowledge_items_text_search_idx').using('gin', sql`kh_english_vector(${table.text})`),
  ],
);

/** A subject an organization's meetings discuss, merged across meetings by its stemmed key. */
export const topics = pgTable(
  'topics',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The most common way it is written ("remote control"). */
    name: text('name').notNull(),
    /** Its stemmed words ("remot control"): meetings that say "remote controls" share the topic. */
    key: text('key').notNull(),
    /** Words said alongside it, most telling first. */
    keywords: text('keywords').array().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('topics_organization_key_key').on(table.organizationId, table.key)],
);

/** Where a topic is discussed: how much, and from which second. */
export const videoTopics = pgTable(
  'video_topics',
  {
    topicId: uuid('topic_id')
      .notNull()
      .references(() => topics.id, { onDelete: 'cascade' }),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    /** How many times the meeting says it. */
    mentions: integer('mentions').notNull(),
    /** How central it is to the meeting, 0–1. */
    score: doublePrecision('score').notNull(),
    /** Seconds into the video where it first comes up. */
    firstStart: doublePrecision('first_start').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.topicId, table.videoId] }),
    index('video_topics_video_idx').on(table.videoId),
    index('video_topics_organization_idx').on(table.organizationId, table.topicId),
  ],
);
