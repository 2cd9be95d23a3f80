import { and, asc, count, desc, eq, inArray, not, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { collections, memberships, videos } from '../../db/schema/index.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { requireRole } from '../organizations/access.ts';
import { toVideoView } from '../videos/schemas.ts';
import { type CollectionRow, requireCollectionAccess } from './access.ts';
import type { CollectionView, CollectionWithVideosView } from './schemas.ts';

export const collectionView = (row: CollectionRow, videoCount: number): CollectionView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  thumbnailUrl: row.thumbnailUrl,
  organizationId: row.organizationId,
  type: row.type,
  isPublic: row.isPublic,
  videoCount,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The playlist order; ties (none once positions are dense) fall back to the time-ordered id. */
export const playlistOrder = [asc(videos.collectionPosition), asc(videos.id)];

/** A collection with its videos in playlist order, deleted ones left out. */
export async function collectionWithVideos(
  db: Db | Tx,
  collection: CollectionRow,
): Promise<CollectionWithVideosView> {
  const rows = await db
    .select()
    .from(videos)
    .where(and(eq(videos.collectionId, collection.id), not(videos.isDeleted)))
    .orderBy(...playlistOrder);
  return { ...collectionView(collection, rows.length), videos: rows.map(toVideoView) };
}

export async function createCollection(
  context: AppContext,
  userId: string,
  input: {
    name: string;
    organizationId: string;
    description?: string | null | undefined;
    thumbnailUrl?: string | null | undefined;
    type?: 'folder' | 'playlist' | null | undefined;
    isPublic?: boolean | null | undefined;
  },
): Promise<CollectionView> {
  return context.db.transaction(async (tx) => {
    // Collections are content: viewers read them but do not create them (API.md §1 roles).
    await requireRole(tx, { userId, organizationId: input.organizationId, minRole: 'member' });
    const now = context.clock.now();
    const [row] = await tx
      .insert(collections)
      .values({
        organizationId: input.organizationId,
        name: input.name,
        description: input.description ?? null,
        thumbnailUrl: input.thumbnailUrl ?? null,
        type: input.type ?? 'folder',
        isPublic: input.isPublic ?? false,
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('collection insert returned nothing');
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'collection.created',
      targetType: 'collection',
      targetId: row.id,
      metadata: { name: row.name, type: row.type },
    });
    return collectionView(row, 0);
  });
}

// Qualified by hand: Drizzle leaves columns of a single-table select unqualified, which inside the
// subquery would resolve to the videos table.
const liveVideoCount = sql<number>`(select count(*) from videos v where v.collection_id = "collections"."id" and not v.is_deleted)`;

/**
 * The list queries, prepared once per database handle: planning them cost more than running them.
 * `organizationId` and `type` are optional filters (null matches everything).
 */
function prepareListQueries(db: Db) {
  const userId = sql.placeholder('userId');
  const organizationId = sql.placeholder('organizationId');
  const type = sql.placeholder('type');
  const where = and(
    inArray(
      collections.organizationId,
      db
        .select({ id: memberships.organizationId })
        .from(memberships)
        .where(
          and(
            eq(memberships.userId, userId),
            sql`(${organizationId}::uuid IS NULL OR ${memberships.organizationId} = ${organizationId}::uuid)`,
          ),
        ),
    ),
    sql`(${type}::text IS NULL OR ${collections.type} = ${type}::text)`,
  );
  return {
    page: db
      .select({ collection: collections, videoCount: liveVideoCount.mapWith(Number) })
      .from(collections)
      .where(where)
      .orderBy(desc(collections.createdAt), desc(collections.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare('collections_page'),
    total: db.select({ total: count() }).from(collections).where(where).prepare('collections_total'),
  };
}

const listQueries = new WeakMap<Db, ReturnType<typeof prepareListQueries>>();

/** Newest first, across the caller's organizations or the one named (403 when not a member). */
export async function listCollections(
  db: Db,
  userId: string,
  query: PageRequest & { type?: 'folder' | 'playlist' | undefined; organizationId?: string | undefined },
) {
  if (query.organizationId) await requireRole(db, { userId, organizationId: query.organizationId });
  let prepared = listQueries.get(db);
  if (!prepared) {
    prepared = prepareListQueries(db);
    listQueries.set(db, prepared);
  }
  const filters = { userId, organizationId: query.organizationId ?? null, type: query.type ?? null };
  const [rows, [counted]] = await Promise.all([
    prepared.page.execute({ ...filters, ...pageBounds(query) }),
    prepared.total.execute(filters),
  ]);
  const data = rows.map(({ collection, videoCount }) => collectionView(collection, videoCount));
  return toPage(data, counted?.total ?? 0, query);
}

export async function getCollection(db: Db, userId: string, collectionId: string) {
  const { collection } = await requireCollectionAccess(db, { collectionId, userId, action: 'read' });
  return collectionWithVideos(db, collection);
}

export async function updateCollection(
  context: AppContext,
  userId: string,
  collectionId: string,
  input: {
    name?: string | null | undefined;
    description?: string | null | undefined;
    thumbnailUrl?: string | null | undefined;
    isPublic?: boolean | null | undefined;
  },
): Promise<CollectionView> {
  return context.db.transaction(async (tx) => {
    await requireCollectionAccess(tx, { collectionId, userId, action: 'edit', forUpdate: true });
    const [row] = await tx
      .update(collections)
      .set({
        // null keeps name and isPublic (they cannot be empty) and clears the optional texts.
        name: input.name ?? undefined,
        isPublic: input.isPublic ?? undefined,
        description: input.description,
        thumbnailUrl: input.thumbnailUrl,
        updatedAt: context.clock.now(),
      })
      .where(eq(collections.id, collectionId))
      .returning();
    if (!row) throw new Error('collection update returned nothing');
    const changed = Object.keys(input).filter((key) => input[key as keyof typeof input] !== undefined);
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'collection.updated',
      targetType: 'collection',
      targetId: row.id,
      metadata: { name: row.name, fields: changed },
    });
    const [counted] = await tx
      .select({ total: count() })
      .from(videos)
      .where(and(eq(videos.collectionId, row.id), not(videos.isDeleted)));
    return collectionView(row, counted?.total ?? 0);
  });
}

/** Deletes the grouping only: its videos stay, out of any collection. Progress on it goes with it. */
export async function deleteCollection(context: AppContext, userId: string, collectionId: string) {
  return context.db.transaction(async (tx) => {
    const { collection } = await requireCollectionAccess(tx, {
      collectionId,
      userId,
      action: 'edit',
      forUpdate: true,
    });
    await tx
      .update(videos)
      .set({ collectionId: null, collectionPosition: null })
      .where(eq(videos.collectionId, collectionId));
    await tx.delete(collections).where(eq(collections.id, collectionId));
    await recordActivity(tx, {
      organizationId: collection.organizationId,
      actorId: userId,
      action: 'collection.deleted',
      targetType: 'collection',
      targetId: collection.id,
      metadata: { name: collection.name },
    });
    return { id: collectionId, deleted: true as const };
  });
}
