import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

/** AI credits an organization used, per calendar month (UTC, `YYYY-MM`) and feature. */
export const aiUsage = pgTable(
  'ai_usage',
  {
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    period: text('period').notNull(),
    feature: text('feature').notNull(),
    credits: integer('credits').notNull().default(0),
    operations: integer('operations').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.period, table.feature] })],
);

/**
 * Every question asked through QA or chat, with how it was answered: the history of what people
 * wanted to know, and the source of knowledge gaps (questions the library could not answer).
 */
export const aiQuestions = pgTable(
  'ai_questions',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** `qa` or `chat`. */
    source: text('source').notNull(),
    question: text('question').notNull(),
    /** Lower-cased stemmed words of the question, sorted: the same question asked twice groups. */
    normalizedQuestion: text('normalized_question').notNull(),
    answer: text('answer').notNull(),
    answered: boolean('answered').notNull(),
    confidence: doublePrecision('confidence').notNull(),
    citations: jsonb('citations').$type<unknown[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (table) => [
    index('ai_questions_organization_idx').on(table.organizationId, table.createdAt),
    index('ai_questions_gaps_idx').on(table.organizationId, table.normalizedQuestion),
  ],
);

/** A person's conversation with the assistant, in one organization; only its owner sees it. */
export const chatConversations = pgTable(
  'chat_conversations',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [index('chat_conversations_user_idx').on(table.userId, table.updatedAt)],
);

/** The turns of a conversation: the person's messages and the assistant's cited answers. */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: id(),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => chatConversations.id, { onDelete: 'cascade' }),
    /** `user` or `assistant`. */
    role: text('role').notNull(),
    content: text('content').notNull(),
    /** Assistant turns: whether the library answered, how well, and from where. */
    answered: boolean('answered'),
    confidence: doublePrecision('confidence'),
    citations: jsonb('citations').$type<unknown[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (table) => [index('chat_messages_conversation_idx').on(table.conversationId, table.createdAt)],
);
