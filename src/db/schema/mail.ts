import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz } from './columns.ts';

/**
 * Every outgoing mail, written in the transaction that causes it and delivered by a job.
 * Without SMTP_URL the mail stays here (status `logged`) and its text goes to the log, so a
 * self-hoster can still follow a reset or invitation link.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: id(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    /** pending → sent | logged | failed */
    status: text('status').$type<'pending' | 'sent' | 'logged' | 'failed'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    sentAt: timestamptz('sent_at'),
    createdAt: createdAt(),
  },
  (table) => [index('mail_outbox_status_idx').on(table.status)],
);
