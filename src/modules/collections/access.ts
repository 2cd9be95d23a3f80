import { eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { collections } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { AppError, errors } from '../../http/errors.ts';
import { requireRole, roleAtLeast } from '../organizations/access.ts';

export type CollectionRow = typeof collections.$inferSelect;

/**
 * What a caller wants to do with a collection:
 * - `read`: any member (viewers too), including keeping their own playlist progress;
 * - `edit`: rename, change or delete it, and add, remove or reorder its videos: its creator (member
 *   or above) or an admin — a member edits their own content, an admin anyone's (API.md, roles).
 */
export type CollectionAction = 'read' | 'edit';

const MIN_ROLE: Record<CollectionAction, Role> = { read: 'viewer', edit: 'member' };

export const collectionNotFound = () => errors.notFound('Collection not found');

/**
 * The one authorization check for collections. Unknown → 404. A collection of an organization the
 * caller is not in is a 404 (never reveal it exists), except where the spec lists 403 for
 * outsiders (playlist progress): `outsider: 'forbidden'`.
 */
export async function requireCollectionAccess(
  db: Db | Tx,
  input: {
    collectionId: string;
    userId: string;
    action: CollectionAction;
    outsider?: 'forbidden' | 'not_found';
    forUpdate?: boolean;
  },
): Promise<{ collection: CollectionRow; role: Role }> {
  const query = db.select().from(collections).where(eq(collections.id, input.collectionId));
  const [collection] = input.forUpdate ? await query.for('update') : await query;
  if (!collection) throw collectionNotFound();
  const role = await requireRole(db, {
    userId: input.userId,
    organizationId: collection.organizationId,
    minRole: MIN_ROLE[input.action],
    outsider: input.outsider ?? 'not_found',
  }).catch((error: unknown) => {
    // requireRole names the organization; the caller addressed a collection.
    throw error instanceof AppError && error.statusCode === 404 ? collectionNotFound() : error;
  });
  if (input.action === 'edit' && collection.createdBy !== input.userId && !roleAtLeast(role, 'admin')) {
    throw errors.forbidden('Only its creator or an admin can change this collection', 'INSUFFICIENT_ROLE');
  }
  return { collection, role };
}
