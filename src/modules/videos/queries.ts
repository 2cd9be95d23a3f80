import { and, asc, count, desc, eq, exists, getTableColumns, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { memberships, videos } from '../../db/schema/index.ts';
import { ROLES } from '../../db/schema/users.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { requireRole, roleAtLeast } from '../organizations/access.ts';
import type {
  ListDeletedVideosQuery,
  ListInclude,
  ListVideosQuery,
  VideoListItem,
  VideoSort,
} from './schemas.ts';
import { toVideoView } from './schemas.ts';

/** A row's columns but its transcript: lists read only whether there is one. */
const { transcript: _transcript, ...summaryColumns } = getTableColumns(videos);

/** Each sort follows an (organization, column) index; the id breaks ties so pages never overlap. */
const ORDER: Record<VideoSort, SQL[]> = {
  '-createdAt': [desc(videos.createdAt), desc(videos.id)],
  createdAt: [asc(videos.createdAt), asc(videos.id)],
  title: [asc(videos.title), asc(videos.id)],
  '-viewCount': [desc(videos.viewCount), desc(videos.id)],
};

// Who may restore a deleted video, as requireVideoAccess decides for 'edit': its author while a
// member or above, and admins.
const AUTHOR_ROLES = ROLES.filter((role) => roleAtLeast(role, 'member'));
const MODERATOR_ROLES = ROLES.filter((role) => roleAtLeast(role, 'admin'));

/** One named organization (403 unless the caller belongs to it), or every organization the caller is in. */
async function organizationScope(db: Db, userId: string, organizationId: string | undefined): Promise<SQL> {
  if (organizationId) {
    await requireRole(db, { userId, organizationId });
    return eq(videos.organizationId, organizationId);
  }
  const mine = db
    .select({ id: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return inArray(videos.organizationId, mine);
}

/**
 * One page of the videos matching `where`, in `orderBy` order, as list items (the transcript only
 * when asked for): one query for the page, one for the total. Channels and series list their
 * videos through it too.
 */
export async function pageOfVideos(
  db: Db,
  where: SQL | undefined,
  orderBy: SQL[],
  page: PageRequest & ListInclude,
) {
  const { limit, offset } = pageBounds(page);
  const withText = page.include === 'transcript';
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        ...summaryColumns,
        ...(withText ? { transcript: videos.transcript } : {}),
        hasTranscript: sql<boolean>`${videos.transcript} is not null`,
      })
      .from(videos)
      .where(where)
      .orderBy(...orderBy)
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(videos).where(where),
  ]);
  const items = rows.map(({ hasTranscript, ...row }): VideoListItem => {
    const { transcript, ...view } = toVideoView({ transcript: null, ...row });
    return { ...view, hasTranscript, ...(withText ? { transcript } : {}) };
  });
  return toPage(items, counted?.total ?? 0, page);
}

/** The non-deleted videos of the caller's organizations (members see all of their organization's). */
export async function listVideos(db: Db, userId: string, query: ListVideosQuery) {
  const where = and(
    await organizationScope(db, userId, query.organizationId),
    eq(videos.isDeleted, false),
    query.channelId ? eq(videos.channelId, query.channelId) : undefined,
    query.collectionId ? eq(videos.collectionId, query.collectionId) : undefined,
    query.seriesId ? eq(videos.seriesId, query.seriesId) : undefined,
    query.authorId ? eq(videos.authorId, query.authorId) : undefined,
    query.isPublic === undefined ? undefined : eq(videos.isPublic, query.isPublic),
  );
  return pageOfVideos(db, where, ORDER[query.sort], query);
}

/** Deleted videos awaiting their purge that the caller may restore, most recently deleted first. */
export async function listDeletedVideos(db: Db, userId: string, query: ListDeletedVideosQuery) {
  const mayRestore = exists(
    db
      .select({ one: memberships.userId })
      .from(memberships)
      .where(
        and(
          eq(memberships.organizationId, videos.organizationId),
          eq(memberships.userId, userId),
          or(
            and(eq(videos.authorId, userId), inArray(memberships.role, AUTHOR_ROLES)),
            inArray(memberships.role, MODERATOR_ROLES),
          ),
        ),
      ),
  );
  const where = and(
    await organizationScope(db, userId, query.organizationId),
    eq(videos.isDeleted, true),
    mayRestore,
  );
  return pageOfVideos(db, where, [desc(videos.deletedAt), desc(videos.id)], query);
}
