import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { memberships, organizations } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { randomSuffix, slugify } from './slugs.ts';

const UNIQUE_VIOLATION = '23505';

/**
 * Creates an organization with its creator as owner. A requested slug that is taken is a 409;
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
      if (input.slug) throw errors.conflict('An organization with this slug already exists', 'SLUG_TAKEN');
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
        return organization;
      });
    } catch (error) {
      // Lost a race for the same slug to a concurrent request: try the next candidate.
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION || input.slug) throw error;
    }
  }
  throw errors.conflict('Could not find a free slug; pass one explicitly', 'SLUG_TAKEN');
}
