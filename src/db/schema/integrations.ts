import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from './columns.ts';
import { organizations } from './organizations.ts';
import { users } from './users.ts';

export const integrationKinds = ['webhook', 'slack'] as const;
export type IntegrationKind = (typeof integrationKinds)[number];

/**
 * A destination that hears of an organization's events: an outgoing webhook (signed JSON) or a
 * Slack incoming webhook (Block Kit messages).
 */
export const integrations = pgTable(
  'integrations',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<IntegrationKind>().notNull(),
    /** Shown to people: a webhook's URL, or a Slack URL with its secret path masked. */
    displayUrl: text('display_url').notNull(),
    /**
     * Sealed (AES-256-GCM, lib/crypto.ts): a webhook's signing secret, or the whole Slack URL
     * (whoever has it can post to the channel).
     */
    sealedSecret: text('sealed_secret').notNull(),
    /** Where a webhook posts; for Slack the sealed secret holds it. */
    url: text('url'),
    events: text('events').array().notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    /** Start of the current run of failed attempts; null after a success. */
    failingSince: timestamptz('failing_since'),
    /**
     * The latest failed attempt: a failure long after it (beyond a delivery's retry window) starts
     * a new run instead of extending an old one.
     */
    lastFailureAt: timestamptz('last_failure_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('integrations_organization_idx').on(table.organizationId, table.createdAt),
    check('integrations_kind_check', sql`${table.kind} IN ('webhook', 'slack')`),
    // A Slack URL is a secret: only its sealed form is kept.
    check('integrations_slack_url_check', sql`${table.kind} <> 'slack' OR ${table.url} IS NULL`),
  ],
);

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/**
 * The outbox: one row per event and destination, written in the transaction of the change, then
 * sent (and retried) by the `integration-deliveries` job. Every attempt of a delivery sends the
 * same body, with the same event id.
 */
export const integrationDeliveries = pgTable(
  'integration_deliveries',
  {
    id: id(),
    integrationId: uuid('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The event: `{id, type, createdAt, data}`. */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    /** A worker's lease on the row while it sends; an expired lease (a crash) makes it due again. */
    lockedUntil: timestamptz('locked_until'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastAttemptAt: timestamptz('last_attempt_at'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: createdAt(),
  },
  (table) => [
    index('integration_deliveries_integration_idx').on(table.integrationId, table.createdAt),
    index('integration_deliveries_due_idx').on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
  ],
);

export const importStatuses = ['queued', 'running', 'completed'] as const;
export type ImportStatus = (typeof importStatuses)[number];

/** A bulk import of transcript files, run as one job. */
export const importJobs = pgTable(
  'import_jobs',
  {
    id: id(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** Where the imported videos go (optional). */
    channelId: uuid('channel_id'),
    visibility: text('visibility').notNull(),
    status: text('status').$type<ImportStatus>().notNull().default('queued'),
    createdAt: createdAt(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
  },
  (table) => [
    index('import_jobs_organization_idx').on(table.organizationId, table.createdAt),
    check('import_jobs_status_check', sql`${table.status} IN ('queued', 'running', 'completed')`),
    check('import_jobs_visibility_check', sql`${table.visibility} IN ('private', 'public')`),
  ],
);

export const importFileStatuses = ['pending', 'created', 'duplicate', 'failed'] as const;
export type ImportFileStatus = (typeof importFileStatuses)[number];

/** One file of an import: its content until it is processed, then its outcome. */
export const importFiles = pgTable(
  'import_files',
  {
    id: id(),
    jobId: uuid('job_id')
      .notNull()
      .references(() => importJobs.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    /** SHA-256 of the bytes: a file imported once into an organization is not imported again. */
    sha256: text('sha256').notNull(),
    /** The text, cleared once the file is processed. */
    content: text('content'),
    format: text('format'),
    status: text('status').$type<ImportFileStatus>().notNull().default('pending'),
    videoId: uuid('video_id'),
    error: text('error'),
    errorLine: integer('error_line'),
  },
  (table) => [
    index('import_files_job_idx').on(table.jobId, table.position),
    uniqueIndex('import_files_created_hash_idx')
      .on(table.organizationId, table.sha256)
      .where(sql`${table.status} = 'created'`),
    check('import_files_status_check', sql`${table.status} IN ('pending', 'created', 'duplicate', 'failed')`),
  ],
);
