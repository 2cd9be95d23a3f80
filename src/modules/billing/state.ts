import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { Db, Tx } from '../../db/client.ts';
import { invitations, memberships, subscriptions, videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { findPlan, freePlan, type Plan } from './catalog.ts';

type CatalogConfig = Pick<Config, 'billing' | 'aiMonthlyCredits'>;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/**
 * The plan an organization is on now: its subscription's while that is not canceled, else the
 * free plan. `seats` is what the organization may use: the seats bought, or the free plan's.
 */
export async function currentPlan(db: Db | Tx, config: CatalogConfig, organizationId: string) {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId));
  const paid = row && row.status !== 'canceled' ? row : undefined;
  const plan: Plan = (paid && findPlan(config, paid.planId)) || freePlan(config);
  return { row, paid, plan, seats: paid ? paid.seats : plan.limits.seats };
}

/** Seats taken: members, and invitations still waiting for an answer (each holds a seat). */
export async function seatsUsed(db: Db | Tx, organizationId: string, now: Date) {
  const [members] = await db
    .select({ n: count() })
    .from(memberships)
    .where(eq(memberships.organizationId, organizationId));
  const [pending] = await db
    .select({ n: count() })
    .from(invitations)
    .where(
      and(
        eq(invitations.organizationId, organizationId),
        isNull(invitations.acceptedAt),
        gt(invitations.expiresAt, now),
      ),
    );
  return {
    members: members?.n ?? 0,
    pendingInvitations: pending?.n ?? 0,
    total: (members?.n ?? 0) + (pending?.n ?? 0),
  };
}

export async function videoCount(db: Db | Tx, organizationId: string) {
  const [row] = await db
    .select({ n: count() })
    .from(videos)
    .where(and(eq(videos.organizationId, organizationId), eq(videos.isDeleted, false)));
  return row?.n ?? 0;
}

/** Serialises the changes that count against one organization's limits (seats, videos). */
const lockLimits = (tx: Tx, organizationId: string, limit: 'seats' | 'videos') =>
  tx.execute(
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${`plan-limit:${limit}:${organizationId}`}, 0))`,
  );

/**
 * Refuses (400 SEAT_LIMIT_REACHED) taking `adding` more seats than the plan leaves: an invitation
 * takes one; accepting it takes none (its invitation held the seat) but is refused too while the
 * organization is over its seats (after a downgrade). Returns whether the seats are now all taken.
 */
export async function reserveSeats(
  tx: Tx,
  config: CatalogConfig,
  organizationId: string,
  adding: number,
  now: Date,
): Promise<{ full: boolean; seats: number }> {
  await lockLimits(tx, organizationId, 'seats');
  const { plan, seats } = await currentPlan(tx, config, organizationId);
  const used = await seatsUsed(tx, organizationId, now);
  if (used.total + adding > seats) {
    throw errors.badRequest(
      `All ${seats} seats of the ${plan.name} plan are taken (${used.members} members, ` +
        `${used.pendingInvitations} pending invitations): add seats with PATCH /billing/subscription, ` +
        'or remove a member or an invitation',
      'SEAT_LIMIT_REACHED',
    );
  }
  return { full: adding > 0 && used.total + adding === seats, seats };
}

/** Refuses (400 VIDEO_LIMIT_REACHED) a new video past the plan's limit. */
export async function assertVideoAllowed(tx: Tx, config: CatalogConfig, organizationId: string) {
  const { plan } = await currentPlan(tx, config, organizationId);
  if (plan.limits.videos === null) return;
  await lockLimits(tx, organizationId, 'videos');
  const kept = await videoCount(tx, organizationId);
  if (kept >= plan.limits.videos) {
    throw errors.badRequest(
      `The ${plan.name} plan keeps ${plan.limits.videos} videos and the organization has ${kept}: ` +
        'upgrade the plan, or delete videos',
      'VIDEO_LIMIT_REACHED',
    );
  }
}

/** AI credits the organization may use per month: its plan's. */
export async function monthlyAiCredits(db: Db | Tx, config: CatalogConfig, organizationId: string) {
  return (await currentPlan(db, config, organizationId)).plan.limits.aiCreditsPerMonth;
}
