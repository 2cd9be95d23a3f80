import { eq, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../../db/client.ts';
import { memberships } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { AppError, errors } from '../../http/errors.ts';
import { requireRole } from '../organizations/access.ts';

/**
 * What a caller wants to do with a piece of organization content addressed in the path
 * (a channel, a series): `read` needs any membership; `edit` needs to be its creator (member or
 * above) or an admin.
 */
export type ContentAction = 'read' | 'edit';

/**
 * The authorization check for path-addressed organization content. An outsider gets the same
 * 404 as an unknown id (`notFoundMessage`), so the content's existence is not revealed.
 */
export async function requireContentAccess(
  db: Db | Tx,
  input: {
    userId: string;
    organizationId: string;
    createdBy: string | null;
    action: ContentAction;
    notFoundMessage: string;
  },
): Promise<Role> {
  const minRole: Role =
    input.action === 'read' ? 'viewer' : input.createdBy === input.userId ? 'member' : 'admin';
  try {
    return await requireRole(db, {
      userId: input.userId,
      organizationId: input.organizationId,
      minRole,
      outsider: 'not_found',
    });
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) throw errors.notFound(input.notFoundMessage);
    throw error;
  }
}

/**
 * Which organizations a list covers: the one named in the query (403 unless the caller is a
 * member), or every organization the caller belongs to.
 */
export async function organizationScope(
  db: Db,
  input: { userId: string; organizationId: string | undefined; column: PgColumn },
): Promise<SQL> {
  if (input.organizationId) {
    await requireRole(db, { userId: input.userId, organizationId: input.organizationId });
    return eq(input.column, input.organizationId);
  }
  const mine = db
    .select({ id: memberships.organizationId })
    .from(memberships)
    .where(eq(memberships.userId, input.userId));
  return inArray(input.column, mine);
}
