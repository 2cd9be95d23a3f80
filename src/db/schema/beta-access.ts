import { pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz } from './columns.ts';
import { users } from './users.ts';

export const betaAccessRequests = pgTable(
  'beta_access_requests',
  {
    id: id(),
    email: text('email').notNull(),
    name: text('name'),
    company: text('company'),
    useCase: text('use_case'),
    status: text('status').$type<'pending' | 'approved'>().notNull().default('pending'),
    approvedAt: timestamptz('approved_at'),
    approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('beta_access_requests_email_key').on(table.email)],
);
