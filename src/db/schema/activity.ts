import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id } from './columns.ts';

/**
 * Every mutation, written in the transaction that makes it. No foreign keys: the log outlives
 * what it talks about (a deleted video, a user who left).
 */
export const activityEvents = pgTable(
  'activity_events',
  {
    id: id(),
    /** Null for events that belong to no organization (a user's own account). */
    organizationId: uuid('organization_id'),
    actorId: uuid('actor_id'),
    /** `<target>.<verb>`: video.created, member.role_changed, … */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: uuid('target_id'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (table) => [
    index('activity_events_organization_created_idx').on(table.organizationId, table.createdAt),
    index('activity_events_actor_created_idx').on(table.actorId, table.createdAt),
  ],
);
