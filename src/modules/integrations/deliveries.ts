import { and, eq, inArray, isNotNull, lt, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import {
  type IntegrationKind,
  integrationDeliveries,
  integrations,
  memberships,
} from '../../db/schema/index.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { addSeconds } from '../../lib/clock.ts';
import { openSecret } from '../../lib/crypto.ts';
import { notify } from '../notifications/notify.ts';
import { postJson, type SendOutcome } from './sender.ts';
import { signatureHeader } from './signature.ts';
import { slackMessage } from './slack-messages.ts';

export const DELIVERY_JOB = 'integration-deliveries';
export const DELIVERY_RETRY_JOB = 'integration-delivery-retries';

/** A delivery is retried for a day after its event… */
export const RETRY_WINDOW_SECONDS = 24 * 3600;
/** …and an integration whose deliveries have failed without a success for three days is disabled. */
export const DISABLE_AFTER_SECONDS = 3 * 24 * 3600;
/** Finished deliveries (delivered or failed) stay listed this long, then go. */
export const DELIVERY_RETENTION_DAYS = 30;
const FIRST_RETRY_SECONDS = 30;
const LONGEST_RETRY_SECONDS = 6 * 3600;
const BATCH_SIZE = 10;

export type DeliveryContext = Pick<AppContext, 'config' | 'db' | 'clock'> & {
  jobs: Pick<JobQueue, 'send'>;
  logger: Pick<AppContext['logger'], 'warn'>;
};

/**
 * Seconds before attempt `attempt + 1`: doubling from 30 s up to 6 h, with "equal jitter" (half
 * the delay fixed, half random) so that receivers coming back are not hit by every sender at once.
 */
export function retryDelaySeconds(attempt: number, random: () => number = Math.random): number {
  const delay = Math.min(FIRST_RETRY_SECONDS * 2 ** (attempt - 1), LONGEST_RETRY_SECONDS);
  return Math.round(delay / 2 + (random() * delay) / 2);
}

type ClaimedDelivery = {
  id: string;
  integrationId: string;
  organizationId: string;
  eventType: string;
  payload: Record<string, unknown>;
  attempts: number;
  createdAt: Date;
  kind: IntegrationKind;
  url: string | null;
  sealedSecret: string;
  enabled: boolean;
  /** This worker's lease: its outcome is written only while the lease is still its own. */
  lease: Date;
};

/**
 * Takes up to a batch of due deliveries with a lease: the rows are not locked while the requests
 * run, and a worker that dies leaves a lease that expires, after which the delivery is due again
 * (at-least-once: receivers de-duplicate by the event id). SKIP LOCKED lets instances share work.
 */
async function claimDue(db: Db, now: Date, leaseSeconds: number): Promise<ClaimedDelivery[]> {
  // The due rows are chosen once (a materialised CTE: a sub-select in the WHERE may be re-run and
  // lock other rows), then leased in the same statement.
  const { rows } = await db.execute<ClaimedDelivery>(sql`
    WITH due AS MATERIALIZED (
      SELECT id FROM integration_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ${now}
         AND (locked_until IS NULL OR locked_until <= ${now})
       ORDER BY next_attempt_at
       LIMIT ${BATCH_SIZE}
         FOR UPDATE SKIP LOCKED
    )
    UPDATE integration_deliveries AS d
       SET locked_until = ${addSeconds(now, leaseSeconds)}
      FROM due, integrations AS i
     WHERE d.id = due.id AND i.id = d.integration_id
    RETURNING d.id, d.integration_id AS "integrationId", d.organization_id AS "organizationId",
              d.event_type AS "eventType", d.payload, d.attempts, d.created_at AS "createdAt",
              i.kind, i.url, i.sealed_secret AS "sealedSecret", i.enabled, d.locked_until AS "lease"`);
  return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt), lease: new Date(row.lease) }));
}

/** Sends every due delivery (in batches, a batch's requests at once) and returns how many went out. */
export async function deliverDue(context: DeliveryContext): Promise<{ delivered: number; failed: number }> {
  const outcome = { delivered: 0, failed: 0 };
  const leaseSeconds = Math.ceil(context.config.integrations.timeoutMs / 1000) * 2 + 30;
  for (;;) {
    const now = context.clock.now();
    const batch = await claimDue(context.db, now, leaseSeconds);
    if (batch.length === 0) return outcome;
    // One delivery's trouble (a database error recording it) must not stop the others: its lease
    // runs out and it is due again.
    const results = await Promise.allSettled(batch.map((delivery) => attempt(context, delivery)));
    for (const result of results) {
      if (result.status === 'rejected')
        context.logger.warn({ err: result.reason }, 'a delivery attempt failed');
      outcome[result.status === 'fulfilled' && result.value ? 'delivered' : 'failed'] += 1;
    }
  }
}

/** Sends one delivery; anything that stops it before the request (a secret sealed under another SECRET) is its failure. */
async function send(context: DeliveryContext, delivery: ClaimedDelivery, now: Date): Promise<SendOutcome> {
  const { secret, integrations: settings, appUrl } = context.config;
  const options = { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateAddresses };
  let opened: string;
  try {
    opened = openSecret(secret, delivery.sealedSecret);
  } catch {
    return {
      ok: false,
      status: null,
      error:
        'the stored secret cannot be read (SECRET changed): set the URL again, or rotate the signing secret',
    };
  }
  if (delivery.kind === 'slack') {
    return postJson(opened, JSON.stringify(slackMessage(delivery.payload, appUrl)), {
      ...options,
      headers: {},
    });
  }
  const body = JSON.stringify(delivery.payload);
  return postJson(delivery.url as string, body, {
    ...options,
    headers: {
      'x-khub-signature': signatureHeader(opened, body, now),
      'x-khub-event': delivery.eventType,
      'x-khub-delivery': delivery.id,
    },
  });
}

/** One attempt of one delivery; records its outcome and, on failure, schedules the next. */
async function attempt(context: DeliveryContext, delivery: ClaimedDelivery): Promise<boolean> {
  const now = context.clock.now();
  const outcome: SendOutcome = delivery.enabled
    ? await send(context, delivery, now)
    : { ok: false, status: null, error: 'the integration is disabled' };
  const attempts = delivery.attempts + 1;
  const common = { attempts, lastAttemptAt: now, lastStatusCode: outcome.status, lockedUntil: null };
  // A worker that outlived its lease lost the delivery to another: the other's outcome stands.
  const stillLeased = and(
    eq(integrationDeliveries.id, delivery.id),
    eq(integrationDeliveries.lockedUntil, delivery.lease),
  );
  if (outcome.ok) {
    await context.db.transaction(async (tx) => {
      const recorded = await tx
        .update(integrationDeliveries)
        .set({ ...common, status: 'delivered', deliveredAt: now, lastError: null })
        .where(stillLeased)
        .returning({ id: integrationDeliveries.id });
      if (recorded.length === 0) return;
      // Only when it was failing: a busy webhook's row is not rewritten (and locked) per delivery.
      await tx
        .update(integrations)
        .set({ failingSince: null })
        .where(and(eq(integrations.id, delivery.integrationId), isNotNull(integrations.failingSince)));
    });
    return true;
  }
  const elapsed = (now.getTime() - delivery.createdAt.getTime()) / 1000;
  const delay = retryDelaySeconds(attempts);
  const retry = delivery.enabled && elapsed + delay < RETRY_WINDOW_SECONDS;
  await context.db.transaction(async (tx) => {
    const recorded = await tx
      .update(integrationDeliveries)
      .set({
        ...common,
        lastError: outcome.error,
        ...(retry ? { nextAttemptAt: addSeconds(now, delay) } : { status: 'failed' }),
      })
      .where(stillLeased)
      .returning({ id: integrationDeliveries.id });
    if (recorded.length === 0) return;
    if (delivery.enabled) await recordFailure(tx, context, delivery, now);
    // The queue wakes the next attempt on time; the minutely sweep is the safety net.
    if (retry) await context.jobs.send(DELIVERY_RETRY_JOB, {}, { tx, startAfter: delay });
  });
  return false;
}

/**
 * Marks the integration failing; after three days of failures, disables it and tells its admins.
 * A failure more than a retry window after the previous one starts a new run: three days of
 * failures means failing all along, not twice three days apart.
 */
async function recordFailure(tx: Tx, context: DeliveryContext, delivery: ClaimedDelivery, now: Date) {
  const runStillGoing = addSeconds(now, -RETRY_WINDOW_SECONDS);
  const [integration] = await tx
    .update(integrations)
    .set({
      failingSince: sql`CASE WHEN ${integrations.failingSince} IS NULL OR ${integrations.lastFailureAt} IS NULL
                               OR ${integrations.lastFailureAt} < ${runStillGoing}
                             THEN ${now}::timestamptz ELSE ${integrations.failingSince} END`,
      lastFailureAt: now,
    })
    .where(eq(integrations.id, delivery.integrationId))
    .returning();
  if (!integration?.failingSince || !integration.enabled) return;
  const failingFor = (now.getTime() - integration.failingSince.getTime()) / 1000;
  if (failingFor < DISABLE_AFTER_SECONDS) return;
  const reason = `Disabled after failing since ${integration.failingSince.toISOString()}: ${
    delivery.kind === 'slack' ? 'Slack' : integration.url
  } did not accept a delivery for three days.`;
  await tx
    .update(integrations)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(eq(integrations.id, integration.id));
  const admins = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(
      and(
        eq(memberships.organizationId, integration.organizationId),
        inArray(memberships.role, ['owner', 'admin']),
      ),
    );
  await notify(tx, context, {
    type: 'integration',
    recipientIds: admins.map((admin) => admin.userId),
    organizationId: integration.organizationId,
    actorId: null,
    title: delivery.kind === 'slack' ? 'Slack integration disabled' : 'Webhook disabled',
    body: reason,
    targetType: 'integration',
    targetId: integration.id,
    data: { integrationId: integration.id, kind: integration.kind },
  });
}

/** Removes finished deliveries older than the retention period; pending ones stay whatever their age. */
export async function removeOldDeliveries(db: Db, now: Date): Promise<number> {
  const removed = await db
    .delete(integrationDeliveries)
    .where(
      and(
        ne(integrationDeliveries.status, 'pending'),
        lt(integrationDeliveries.createdAt, addSeconds(now, -DELIVERY_RETENTION_DAYS * 24 * 3600)),
      ),
    )
    .returning({ id: integrationDeliveries.id });
  return removed.length;
}
