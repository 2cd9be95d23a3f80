import { and, count, desc, eq, exists, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { memberships, savedSearches } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { organizationScope } from '../channels/access.ts';
import { requireRole } from '../organizations/access.ts';
import { assertOrganizationReferences } from '../organizations/references.ts';
import {
  type CreateSavedSearchInput,
  type SavedSearchFilters,
  type SavedSearchView,
  savedSearchFiltersSchema,
  type UpdateSavedSearchInput,
} from './schemas.ts';

const NOT_FOUND = 'Saved search not found';
const NAME_KEY = 'saved_searches_user_organization_name_key';

type SavedSearchRow = typeof savedSearches.$inferSelect;

/** The name index rejects a duplicate even when two requests race past any check of ours. */
function asNameTaken(error: unknown): unknown {
  const constraint = (error as { cause?: { constraint?: string } }).cause?.constraint;
  if (!isUniqueViolation(error) || constraint !== NAME_KEY) return error;
  return errors.conflict(
    'You already have a saved search with this name in this organization',
    'SAVED_SEARCH_NAME_TAKEN',
  );
}

/** Stored as GET /search takes them (ISO instants), so that the JSON survives a round trip. */
const storedFilters = (filters: SavedSearchFilters | undefined) =>
  z.encode(savedSearchFiltersSchema, filters ?? {}) as Record<string, unknown>;

const savedSearchView = (row: SavedSearchRow): SavedSearchView => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  query: row.query,
  filters: z.decode(savedSearchFiltersSchema, row.filters as z.input<typeof savedSearchFiltersSchema>),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * Saved searches are personal: the caller's own, and only while they are still a member of its
 * organization (someone who left keeps nothing of it they can reach).
 */
const visibleTo = (userId: string) =>
  and(
    eq(savedSearches.userId, userId),
    exists(
      sql`(select 1 from ${memberships} where ${memberships.organizationId} = ${savedSearches.organizationId}
        and ${memberships.userId} = ${userId})`,
    ),
  );

async function requireSavedSearch(db: Db | Tx, userId: string, id: string, forUpdate = false) {
  const query = db
    .select()
    .from(savedSearches)
    .where(and(eq(savedSearches.id, id), visibleTo(userId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw errors.notFound(NOT_FOUND);
  return row;
}

export async function createSavedSearch(context: AppContext, userId: string, input: CreateSavedSearchInput) {
  try {
    return await context.db.transaction(async (tx) => {
      await requireRole(tx, { userId, organizationId: input.organizationId, outsider: 'forbidden' });
      await assertOrganizationReferences(tx, input.organizationId, input.filters ?? {}, 'body.filters');
      const now = context.clock.now();
      const [row] = await tx
        .insert(savedSearches)
        .values({
          userId,
          organizationId: input.organizationId,
          name: input.name,
          query: input.query,
          filters: storedFilters(input.filters),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error('saved search insert returned nothing');
      await recordActivity(tx, {
        organizationId: row.organizationId,
        actorId: userId,
        action: 'saved_search.created',
        targetType: 'saved_search',
        targetId: row.id,
        metadata: { name: row.name },
      });
      return savedSearchView(row);
    });
  } catch (error) {
    throw asNameTaken(error);
  }
}

/** The caller's saved searches in one of their organizations (or all of them), newest first. */
export async function listSavedSearches(
  db: Db,
  userId: string,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const scope = await organizationScope(db, {
    userId,
    organizationId: query.organizationId,
    column: savedSearches.organizationId,
  });
  const where = and(eq(savedSearches.userId, userId), scope);
  const { limit, offset } = pageBounds(query);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(savedSearches)
      .where(where)
      .orderBy(desc(savedSearches.createdAt), desc(savedSearches.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(savedSearches).where(where),
  ]);
  return toPage(rows.map(savedSearchView), counted?.total ?? 0, query);
}

export async function getSavedSearch(db: Db, userId: string, id: string) {
  return savedSearchView(await requireSavedSearch(db, userId, id));
}

export async function updateSavedSearch(
  context: AppContext,
  userId: string,
  id: string,
  input: UpdateSavedSearchInput,
) {
  try {
    return await context.db.transaction(async (tx) => {
      const saved = await requireSavedSearch(tx, userId, id, true);
      if (input.filters) {
        await assertOrganizationReferences(tx, saved.organizationId, input.filters, 'body.filters');
      }
      const [row] = await tx
        .update(savedSearches)
        .set({
          name: input.name,
          query: input.query,
          filters: input.filters ? storedFilters(input.filters) : undefined,
          updatedAt: context.clock.now(),
        })
        .where(eq(savedSearches.id, id))
        .returning();
      if (!row) throw new Error('saved search update returned nothing');
      await recordActivity(tx, {
        organizationId: row.organizationId,
        actorId: userId,
        action: 'saved_search.updated',
        targetType: 'saved_search',
        targetId: id,
        metadata: { name: row.name },
      });
      return savedSearchView(row);
    });
  } catch (error) {
    throw asNameTaken(error);
  }
}

export async function deleteSavedSearch(context: AppContext, userId: string, id: string) {
  await context.db.transaction(async (tx) => {
    const row = await requireSavedSearch(tx, userId, id, true);
    await tx.delete(savedSearches).where(eq(savedSearches.id, id));
    await recordActivity(tx, {
      organizationId: row.organizationId,
      actorId: userId,
      action: 'saved_search.deleted',
      targetType: 'saved_search',
      targetId: id,
      metadata: { name: row.name },
    });
  });
  return { id, deleted: true as const };
}
