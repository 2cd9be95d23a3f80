import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { searchHistory } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';

/** Entries kept per person; older ones are dropped as new ones come. */
export const HISTORY_MAX = 100;

export type SearchRecord = {
  userId: string;
  organizationId: string | null;
  query: string;
  filters: Record<string, unknown>;
  resultCount: number;
  now: Date;
};

const newestFirst = [desc(searchHistory.createdAt), desc(searchHistory.id)];

/**
 * Remembers a search. Repeating the latest one (same query, organization and filters) moves it to
 * now instead of adding a row, so that paging through results or refreshing leaves one entry.
 */
export async function recordSearch(db: Db, entry: SearchRecord): Promise<void> {
  await db.transaction(async (tx) => {
    // Serialises one person's concurrent searches: a repeat is recorded once and the cap holds.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`search-history:${entry.userId}`}, 0))`,
    );
    const [latest] = await tx
      .select({
        id: searchHistory.id,
        // jsonb equality ignores key order and spacing.
        repeated: sql<boolean>`${searchHistory.query} = ${entry.query}
          and ${searchHistory.organizationId} is not distinct from ${entry.organizationId}::uuid
          and ${searchHistory.filters} = ${JSON.stringify(entry.filters)}::jsonb`,
      })
      .from(searchHistory)
      .where(eq(searchHistory.userId, entry.userId))
      .orderBy(...newestFirst)
      .limit(1);
    if (latest?.repeated) {
      await tx
        .update(searchHistory)
        .set({ createdAt: entry.now, resultCount: entry.resultCount })
        .where(eq(searchHistory.id, latest.id));
      return;
    }
    await tx.insert(searchHistory).values({
      userId: entry.userId,
      organizationId: entry.organizationId,
      query: entry.query,
      filters: entry.filters,
      resultCount: entry.resultCount,
      createdAt: entry.now,
    });
    const beyondCap = tx
      .select({ id: searchHistory.id })
      .from(searchHistory)
      .where(eq(searchHistory.userId, entry.userId))
      .orderBy(...newestFirst)
      .offset(HISTORY_MAX);
    await tx.delete(searchHistory).where(inArray(searchHistory.id, beyondCap));
  });
}

/** The caller's searches, newest first. */
export async function listHistory(db: Db, userId: string, page: PageRequest) {
  const mine = eq(searchHistory.userId, userId);
  const { limit, offset } = pageBounds(page);
  const [rows, [counted]] = await Promise.all([
    db
      .select({
        id: searchHistory.id,
        query: searchHistory.query,
        filters: searchHistory.filters,
        organizationId: searchHistory.organizationId,
        resultCount: searchHistory.resultCount,
        createdAt: searchHistory.createdAt,
      })
      .from(searchHistory)
      .where(mine)
      .orderBy(...newestFirst)
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(searchHistory).where(mine),
  ]);
  return toPage(rows, counted?.total ?? 0, page);
}

/** Forgets all of the caller's searches; clearing an empty history records nothing. */
export async function clearHistory(context: AppContext, userId: string) {
  return context.db.transaction(async (tx) => {
    const removed = await tx
      .delete(searchHistory)
      .where(eq(searchHistory.userId, userId))
      .returning({ id: searchHistory.id });
    if (removed.length > 0) {
      await recordActivity(tx, {
        organizationId: null,
        actorId: userId,
        action: 'search_history.cleared',
        targetType: 'search_history',
        targetId: null,
        metadata: { count: removed.length },
      });
    }
    return { deleted: removed.length };
  });
}

/**
 * Forgets one search. The activity event does not repeat the query: whoever removes it wants it
 * gone.
 */
export async function deleteHistoryEntry(context: AppContext, userId: string, entryId: string) {
  await context.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(searchHistory)
      .where(and(eq(searchHistory.id, entryId), eq(searchHistory.userId, userId)))
      .returning({ id: searchHistory.id });
    if (!removed) throw errors.notFound('Search history entry not found');
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'search_history.deleted',
      targetType: 'search_history',
      targetId: entryId,
    });
  });
  return { id: entryId, deleted: true as const };
}
