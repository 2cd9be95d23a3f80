import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { channels, collections, memberships, series } from '../../db/schema/index.ts';
import { type ErrorDetail, errors } from '../../http/errors.ts';

export type OrganizationReferences = {
  channelId?: string | undefined;
  seriesId?: string | undefined;
  collectionId?: string | undefined;
  /** A person: must be a member of the organization. */
  authorId?: string | undefined;
};

const CONTAINERS = [
  ['channelId', 'channel', channels],
  ['seriesId', 'series', series],
  ['collectionId', 'collection', collections],
] as const;

/**
 * Ids a request names inside an organization — a channel, series or collection, an author — must
 * be that organization's. Another organization's is answered exactly like an unknown one (400, every
 * offending field at once), so ids do not leak across organizations.
 */
export async function assertOrganizationReferences(
  db: Db | Tx,
  organizationId: string,
  references: OrganizationReferences,
  path: string,
) {
  const details: ErrorDetail[] = [];
  for (const [field, noun, table] of CONTAINERS) {
    const id = references[field];
    if (!id) continue;
    const [found] = await db
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.id, id), eq(table.organizationId, organizationId)));
    if (!found) details.push({ path: `${path}.${field}`, message: `is not a ${noun} of the organization` });
  }
  if (references.authorId) {
    const [member] = await db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(
        and(eq(memberships.userId, references.authorId), eq(memberships.organizationId, organizationId)),
      );
    if (!member) details.push({ path: `${path}.authorId`, message: 'is not a member of the organization' });
  }
  if (details.length > 0) throw errors.validation(details);
}
