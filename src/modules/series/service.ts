import { and, asc, count, eq, max, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { type CADENCES, series, videos } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { type ContentAction, organizationScope, requireContentAccess } from '../channels/access.ts';
import { changedFields } from '../channels/service.ts';
import { requireRole } from '../organizations/access.ts';
import { pageOfVideos } from '../videos/queries.ts';
import type { ListInclude } from '../videos/schemas.ts';
import type { SeriesView } from './schemas.ts';

const NOT_FOUND = 'Series not found';

type Cadence = (typeof CADENCES)[number];

/**
 * Series with their occurrence count and latest recording (deleted videos excluded), aggregated
 * per series by a lateral join in the same query (one aggregate row each, so an inner join on true).
 */
function selectSeries(db: Db | Tx) {
  const stats = db
    .select({
      videoCount: count().as('video_count'),
      lastRecordedAt: max(videos.recordedAt).as('last_recorded_at'),
    })
    .from(videos)
    .where(and(eq(videos.seriesId, series.id), eq(videos.isDeleted, false)))
    .as('occurrence_stats');
  return db
    .select({
      id: series.id,
      organizationId: series.organizationId,
      name: series.name,
      description: series.description,
      cadence: series.cadence,
      createdBy: series.createdBy,
      videoCount: stats.videoCount,
      lastRecordedAt: stats.lastRecordedAt,
      createdAt: series.createdAt,
      updatedAt: series.updatedAt,
    })
    .from(series)
    .innerJoinLateral(stats, sql`true`)
    .$dynamic();
}

async function seriesView(db: Db | Tx, seriesId: string): Promise<SeriesView> {
  const [view] = await selectSeries(db).where(eq(series.id, seriesId));
  if (!view) throw errors.notFound(NOT_FOUND);
  return view;
}

/** Loads a series and checks the caller may `action` it; `forUpdate` locks it for the transaction. */
async function requireSeries(
  db: Db | Tx,
  input: { userId: string; seriesId: string; action: ContentAction; forUpdate?: boolean },
) {
  const query = db.select().from(series).where(eq(series.id, input.seriesId));
  const [row] = input.forUpdate ? await query.for('update') : await query;
  if (!row) throw errors.notFound(NOT_FOUND);
  await requireContentAccess(db, {
    userId: input.userId,
    organizationId: row.organizationId,
    createdBy: row.createdBy,
    action: input.action,
    notFoundMessage: NOT_FOUND,
  });
  return row;
}

export async function createSeries(
  context: AppContext,
  userId: string,
  input: { organizationId: string; name: string; description?: string | null | undefined; cadence: Cadence },
) {
  return context.db.transaction(async (tx) => {
    await requireRole(tx, { userId, organizationId: input.organizationId, minRole: 'member' });
    const now = context.clock.now();
    const [created] = await tx
      .insert(series)
      .values({
        organizationId: input.organizationId,
        name: input.name,
        description: input.description ?? null,
        cadence: input.cadence,
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: series.id });
    if (!created) throw new Error('series insert returned nothing');
    await recordActivity(tx, {
      organizationId: input.organizationId,
      actorId: userId,
      action: 'series.created',
      targetType: 'series',
      targetId: created.id,
      metadata: { name: input.name, cadence: input.cadence },
    });
    return seriesView(tx, created.id);
  });
}

/** Series of one organization of the caller's (or all of them), by name. */
export async function listSeries(
  db: Db,
  userId: string,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const scope = await organizationScope(db, {
    userId,
    organizationId: query.organizationId,
    column: series.organizationId,
  });
  const { limit, offset } = pageBounds(query);
  const [rows, [counted]] = await Promise.all([
    selectSeries(db).where(scope).orderBy(asc(series.name), asc(series.id)).limit(limit).offset(offset),
    db.select({ total: count() }).from(series).where(scope),
  ]);
  return toPage(rows, counted?.total ?? 0, query);
}

export async function getSeries(db: Db, userId: string, seriesId: string) {
  await requireSeries(db, { userId, seriesId, action: 'read' });
  return seriesView(db, seriesId);
}

export async function updateSeries(
  context: AppContext,
  userId: string,
  seriesId: string,
  input: {
    name?: string | undefined;
    description?: string | null | undefined;
    cadence?: Cadence | undefined;
  },
) {
  return context.db.transaction(async (tx) => {
    const row = await requireSeries(tx, { userId, seriesId, action: 'edit', forUpdate: true });
    await tx
      .update(series)
      .set({
        name: input.name,
        description: input.description,
        cadence: input.cadence,
        updatedAt: context.clock.now(),
      })
      .where(eq(series.id, seriesId));
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'series.updated',
      targetType: 'series',
      targetId: seriesId,
      metadata: { name: input.name ?? row.name, changed: changedFields(input) },
    });
    return seriesView(tx, seriesId);
  });
}

/** Deletes a series; its videos stay, without a series (the foreign key sets it null). */
export async function deleteSeries(context: AppContext, userId: string, seriesId: string) {
  await context.db.transaction(async (tx) => {
    const row = await requireSeries(tx, { userId, seriesId, action: 'edit', forUpdate: true });
    await tx.delete(series).where(eq(series.id, seriesId));
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'series.deleted',
      targetType: 'series',
      targetId: seriesId,
      metadata: { name: row.name },
    });
  });
  return { id: seriesId, deleted: true as const };
}

/** The occurrences of a series by when they were recorded (undated ones last, by creation). */
export async function listSeriesVideos(
  db: Db,
  userId: string,
  seriesId: string,
  page: PageRequest & ListInclude,
) {
  const row = await requireSeries(db, { userId, seriesId, action: 'read' });
  const where = and(
    eq(videos.seriesId, seriesId),
    eq(videos.organizationId, row.organizationId),
    eq(videos.isDeleted, false),
  );
  const order = [sql`${videos.recordedAt} asc nulls last`, asc(videos.createdAt), asc(videos.id)];
  return pageOfVideos(db, where, order, page);
}
