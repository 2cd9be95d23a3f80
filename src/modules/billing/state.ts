import { and, count, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { Db, Tx } from '../../db/client.ts';
import { poolOf, runPrepared, selectColumns } from '../../db/hot-path.ts';
import { invitations, memberships, organizations, subscriptions, videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { findPlan, freePlan, type Plan } from './catalog.ts';

type CatalogConfig = Pick<Config, 'billing' | 'aiMonthlyCredits'>;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/**
 * The plan a subscription row puts an organization on: its plan while it is not canceled, else
 * the free plan. `seats` is what the organization may use: the seats bought, or the free plan's.
 */
function planOf(config: CatalogConfig, row: SubscriptionRow | undefined) {
  const paid = row && row.status !== 'canceled' ? row : undefined;
  const plan: Plan = (paid && findPlan(config, paid.planId)) || freePlan(config);
  return { row, paid, plan, seats: paid ? paid.seats : plan.limits.seats };
}

export async function currentPlan(db: Db | Tx, config: CatalogConfig, organizationId: string) {
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.organizationId, organizationId));
  return planOf(config, row);
}

/** Seats taken — members, and invitations still waiting for an answer (each holds a seat) — as subqueries. */
const seatCounts = (organizationId: string, now: Date) => ({
  members: sql<number>`(SELECT count(*)::int FROM ${memberships} WHERE ${memberships.organizationId} = ${organizationId})`,
  pendingInvitations: sql<number>`(SELECT count(*)::int FROM ${invitations}
    WHERE ${invitations.organizationId} = ${organizationId} AND ${invitations.acceptedAt} IS NULL
      AND ${invitations.expiresAt} > ${now.toISOString()})`,
});

const seatsOf = (counts: { members: number; pendingInvitations: number }) => ({
  ...counts,
  total: counts.members + counts.pendingInvitations,
});

export async function seatsUsed(db: Db | Tx, organizationId: string, now: Date) {
  const [counts] = await db
    .select(seatCounts(organizationId, now))
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  return seatsOf(counts ?? { members: 0, pendingInvitations: 0 });
}

const PLAN_AND_SEATS = `SELECT ${selectColumns(getTableColumns(subscriptions), 's')},
    (SELECT count(*)::int FROM memberships WHERE organization_id = $1) AS "members",
    (SELECT count(*)::int FROM invitations
      WHERE organization_id = $1 AND accepted_at IS NULL AND expires_at > $2) AS "pendingInvitations"
  FROM organizations o LEFT JOIN subscriptions s ON s.organization_id = o.id
  WHERE o.id = $1`;

/**
 * currentPlan and seatsUsed in one round trip: what a read of the subscription needs. Outside a
 * transaction it is a prepared raw statement (db/hot-path.ts says why).
 */
export async function planAndSeats(db: Db | Tx, config: CatalogConfig, organizationId: string, now: Date) {
  const pool = poolOf(db);
  const [state] = pool
    ? (
        await runPrepared<SubscriptionRow & { members: number; pendingInvitations: number }>(
          pool,
          'billing_plan_and_seats',
          PLAN_AND_SEATS,
          [organizationId, now],
        )
      ).map(({ members, pendingInvitations, ...subscription }) => ({
        subscription: subscription.id === null ? null : subscription,
        members,
        pendingInvitations,
      }))
    : await db
        .select({ subscription: subscriptions, ...seatCounts(organizationId, now) })
        .from(organizations)
        .leftJoin(subscriptions, eq(subscriptions.organizationId, organizations.id))
        .where(eq(organizations.id, organizationId));
  return {
    ...planOf(config, state?.subscription ?? undefined),
    used: seatsOf(state ?? { members: 0, pendingInvitations: 0 }),
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
  const { plan, seats, used } = await planAndSeats(tx, config, organizationId, now);
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

/** Seats asked for must cover the seats in use and stay within what the plan sells. */
export async function assertSeatsFit(tx: Tx, plan: Plan, organizationId: string, seats: number, now: Date) {
  // Under the lock invitations take: no invitation slips in between the count and the change.
  await lockLimits(tx, organizationId, 'seats');
  const used = await seatsUsed(tx, organizationId, now);
  if (seats < used.total) {
    throw errors.validation([
      {
        path: 'body.seats',
        message: `must cover the ${used.total} seats in use (${used.members} members, ${used.pendingInvitations} pending invitations)`,
      },
    ]);
  }
  if (seats > plan.limits.seats) {
    throw errors.validation([
      { path: 'body.seats', message: `the ${plan.name} plan sells at most ${plan.limits.seats} seats` },
    ]);
  }
}

/** A plan whose video limit is below what the organization keeps is refused, not scheduled. */
export async function assertVideosFit(tx: Tx, plan: Plan, organizationId: string) {
  if (plan.limits.videos === null) return;
  await lockLimits(tx, organizationId, 'videos');
  const kept = await videoCount(tx, organizationId);
  if (kept > plan.limits.videos) {
    throw errors.badRequest(
      `The ${plan.name} plan keeps ${plan.limits.videos} videos and the organization has ${kept}: delete videos first`,
      'PLAN_LIMIT_EXCEEDED',
    );
  }
}
