import { and, count, desc, eq, gte, inArray, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { activityEvents, memberships, users } from '../../db/schema/index.ts';
import { pageBounds, toPage } from '../../http/pagination.ts';
import { requireRole } from '../organizations/access.ts';
import type { ActivityQuery, ActivityStatsQuery } from './schemas.ts';

const DAY_MS = 24 * 3600 * 1000;
const TOP_CONTRIBUTORS = 5;

/**
 * What the caller may see: one named organization they belong to (403 otherwise), or every
 * organization they belong to plus their own account-level events.
 */
async function visibleTo(db: Db, userId: string, organizationId: string | undefined): Promise<SQL> {
  if (organizationId) {
    await requireRole(db, { userId, organizationId, outsider: 'forbidden' });
    return eq(activityEvents.organizationId, organizationId);
  }
  const mine = db
    .select({ id: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return or(
    inArray(activityEvents.organizationId, mine),
    and(isNull(activityEvents.organizationId), eq(activityEvents.actorId, userId)),
  ) as SQL;
}

/** The caller's activity feed, newest first. */
export async function listActivity(db: Db, userId: string, query: ActivityQuery) {
  const where = and(
    await visibleTo(db, userId, query.organizationId),
    query.actorId ? eq(activityEvents.actorId, query.actorId) : undefined,
    query.action ? eq(activityEvents.action, query.action) : undefined,
    query.targetType ? eq(activityEvents.targetType, query.targetType) : undefined,
    query.from ? gte(activityEvents.createdAt, query.from) : undefined,
    query.to ? lte(activityEvents.createdAt, query.to) : undefined,
  );
  const { limit, offset } = pageBounds(query);
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        id: activityEvents.id,
        organizationId: activityEvents.organizationId,
        actorId: activityEvents.actorId,
        actorName: users.name,
        action: activityEvents.action,
        targetType: activityEvents.targetType,
        targetId: activityEvents.targetId,
        metadata: activityEvents.metadata,
        createdAt: activityEvents.createdAt,
      })
      .from(activityEvents)
      .leftJoin(users, eq(users.id, activityEvents.actorId))
      .where(where)
      .orderBy(desc(activityEvents.createdAt), desc(activityEvents.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(activityEvents).where(where),
  ]);
  const data = rows.map(({ actorName, ...event }) => ({
    ...event,
    actor: event.actorId && actorName !== null ? { id: event.actorId, name: actorName } : null,
  }));
  return toPage(data, counted?.total ?? 0, query);
}

type StatsRow = {
  totals: Record<string, number>;
  per_day: Array<{ date: string; count: number }>;
  active_users: number;
  top_contributors: Array<{ userId: string; name: string | null; count: number }>;
};

/**
 * Counts over today (UTC) and the `days - 1` days before it, in one statement: every figure
 * comes from the same filtered set of events, and days without events come from generate_series.
 */
export async function activityStats(context: AppContext, userId: string, query: ActivityStatsQuery) {
  const { db } = context;
  const visible = await visibleTo(db, userId, query.organizationId);
  const today = new Date(context.clock.now().toISOString().slice(0, 10));
  const firstDay = new Date(today.getTime() - (query.days - 1) * DAY_MS);
  const endExclusive = new Date(today.getTime() + DAY_MS);
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);

  const result = await db.execute<StatsRow>(sql`
    WITH events AS (
      SELECT ${activityEvents.action} AS action,
             ${activityEvents.actorId} AS actor_id,
             (${activityEvents.createdAt} AT TIME ZONE 'UTC')::date AS day
      FROM ${activityEvents}
      WHERE ${visible}
        AND ${activityEvents.createdAt} >= ${firstDay.toISOString()}::timestamptz
        AND ${activityEvents.createdAt} < ${endExclusive.toISOString()}::timestamptz
    )
    SELECT
      (SELECT coalesce(json_object_agg(action, n), '{}'::json)
         FROM (SELECT action, count(*)::int AS n FROM events GROUP BY action) per_action) AS totals,
      (SELECT json_agg(json_build_object('date', to_char(d.day, 'YYYY-MM-DD'), 'count', coalesce(c.n, 0)) ORDER BY d.day)
         FROM generate_series(${dayOf(firstDay)}::date, ${dayOf(today)}::date, interval '1 day') AS d(day)
         LEFT JOIN (SELECT day, count(*)::int AS n FROM events GROUP BY day) c ON c.day = d.day::date) AS per_day,
      (SELECT count(DISTINCT actor_id)::int FROM events) AS active_users,
      (SELECT coalesce(json_agg(json_build_object('userId', t.actor_id, 'name', t.name, 'count', t.n)
                                ORDER BY t.n DESC, t.actor_id), '[]'::json)
         FROM (SELECT e.actor_id, u.name, count(*)::int AS n
                 FROM events e LEFT JOIN ${users} u ON u.id = e.actor_id
                WHERE e.actor_id IS NOT NULL
                GROUP BY e.actor_id, u.name
                ORDER BY n DESC, e.actor_id
                LIMIT ${TOP_CONTRIBUTORS}) t) AS top_contributors
  `);
  const row = result.rows[0] as StatsRow;
  return {
    days: query.days,
    totals: row.totals,
    perDay: row.per_day,
    activeUsers: row.active_users,
    topContributors: row.top_contributors,
  };
}
