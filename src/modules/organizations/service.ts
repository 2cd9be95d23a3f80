import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { isUniqueViolation, retriedTransaction } from '../../db/errors.ts';
import { memberships, organizations, users } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { requireRole } from './access.ts';
import { randomSuffix, slugify } from './slugs.ts';

const slugTaken = () => errors.badRequest('An organization with this slug already exists', 'SLUG_TAKEN');

type OrganizationRow = typeof organizations.$inferSelect;

const organizationView = (row: OrganizationRow, role: Role) => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  retentionDays: row.retentionDays,
  role,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * Creates an organization with its creator as owner. A requested slug that is taken is a 400;
 * a generated one gets a random suffix until it is free.
 */
export async function createOrganization(
  tx: Tx,
  input: { name: string; slug?: string | undefined; ownerId: string },
) {
  const base = input.slug ?? slugify(input.name);
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = attempt === 0 ? base : `${base.slice(0, 43)}-${randomSuffix()}`;
    const taken = await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.slug, slug));
    if (taken.length > 0) {
      if (input.slug) throw slugTaken();
      continue;
    }
    try {
      // A savepoint, so that losing the race below leaves the caller's transaction usable.
      return await tx.transaction(async (savepoint) => {
        const [organization] = await savepoint
          .insert(organizations)
          .values({ name: input.name, slug })
          .returning();
        if (!organization) throw new Error('organization insert returned nothing');
        await savepoint
          .insert(memberships)
          .values({ organizationId: organization.id, userId: input.ownerId, role: 'owner' });
        await recordActivity(savepoint, {
          organizationId: organization.id,
          actorId: input.ownerId,
          action: 'organization.created',
          targetType: 'organization',
          targetId: organization.id,
          metadata: { name: organization.name, slug: organization.slug },
        });
        return organization;
      });
    } catch (error) {
      // Lost a race for the same slug to a concurrent request: try the next candidate.
      if (!isUniqueViolation(error)) throw error;
      if (input.slug) throw slugTaken();
    }
  }
  throw errors.badRequest('Could not find a free slug; pass one explicitly', 'SLUG_TAKEN');
}

export async function createOrganizationFor(
  context: AppContext,
  userId: string,
  input: { name: string; slug?: string | undefined },
) {
  const organization = await context.db.transaction((tx) =>
    createOrganization(tx, { ...input, ownerId: userId }),
  );
  return organizationView(organization, 'owner');
}

/** The caller's organizations, oldest membership first. */
export async function listOrganizations(db: Db, userId: string, page: PageRequest) {
  const mine = eq(memberships.userId, userId);
  const { limit, offset } = pageBounds(page);
  const [rows, [counted]] = await Promise.all([
    db
      .select({ organization: organizations, role: memberships.role })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
      .where(mine)
      .orderBy(asc(memberships.createdAt), asc(memberships.organizationId))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(memberships).where(mine),
  ]);
  const data = rows.map(({ organization, role }) => organizationView(organization, role));
  return toPage(data, counted?.total ?? 0, page);
}

async function organizationRow(db: Db | Tx, organizationId: string): Promise<OrganizationRow> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, organizationId));
  if (!row) throw errors.notFound('Organization not found');
  return row;
}

export async function getOrganization(db: Db, userId: string, organizationId: string) {
  const role = await requireRole(db, { userId, organizationId, outsider: 'not_found' });
  return organizationView(await organizationRow(db, organizationId), role);
}

export async function updateOrganization(
  context: AppContext,
  userId: string,
  organizationId: string,
  input: { name?: string | undefined; slug?: string | undefined; retentionDays?: number | undefined },
) {
  return context.db.transaction(async (tx) => {
    const role = await requireRole(tx, { userId, organizationId, minRole: 'admin', outsider: 'not_found' });
    if (input.slug !== undefined) {
      const [taken] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(and(eq(organizations.slug, input.slug), ne(organizations.id, organizationId)));
      if (taken) throw slugTaken();
    }
    try {
      const [row] = await tx
        .update(organizations)
        .set({
          name: input.name,
          slug: input.slug,
          retentionDays: input.retentionDays,
          updatedAt: context.clock.now(),
        })
        .where(eq(organizations.id, organizationId))
        .returning();
      if (!row) throw errors.notFound('Organization not found');
      await recordActivity(tx, {
        organizationId,
        actorId: userId,
        action: 'organization.updated',
        targetType: 'organization',
        targetId: organizationId,
        metadata: {
          fields: Object.keys(input).filter((field) => input[field as keyof typeof input] !== undefined),
        },
      });
      return organizationView(row, role);
    } catch (error) {
      // A concurrent request took the slug between the check and the update.
      if (isUniqueViolation(error)) throw slugTaken();
      throw error;
    }
  });
}

/**
 * Deletes an organization with everything it owns (memberships and invitations cascade). Run
 * again when the database breaks a deadlock with a background job by aborting it (see
 * retriedTransaction).
 */
export async function deleteOrganization(context: AppContext, userId: string, organizationId: string) {
  await retriedTransaction(context.db, async (tx) => {
    await requireRole(tx, { userId, organizationId, minRole: 'owner', outsider: 'not_found' });
    const [deleted] = await tx
      .delete(organizations)
      .where(eq(organizations.id, organizationId))
      .returning({ name: organizations.name });
    await reassignDefaultOrganization(tx, organizationId);
    // The log outlives the organization: its members' feeds no longer show it, the owner's account feed does.
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'organization.deleted',
      targetType: 'organization',
      targetId: organizationId,
      metadata: { name: deleted?.name ?? null },
    });
  });
  return { id: organizationId, deleted: true as const };
}

/**
 * Users whose default organization was `organizationId` (only `userId`, when given) get the
 * organization they joined first among those they still belong to, or null.
 */
export async function reassignDefaultOrganization(tx: Tx, organizationId: string, userId?: string) {
  const next = tx
    .select({ id: memberships.organizationId })
    .from(memberships)
    .where(and(eq(memberships.userId, users.id), ne(memberships.organizationId, organizationId)))
    .orderBy(asc(memberships.createdAt), asc(memberships.organizationId))
    .limit(1);
  await tx
    .update(users)
    .set({ defaultOrganizationId: sql`(${next})` })
    .where(
      and(
        eq(users.defaultOrganizationId, organizationId),
        userId === undefined ? undefined : eq(users.id, userId),
      ),
    );
}
