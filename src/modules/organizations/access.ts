import { and, eq } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { poolOf, runPrepared } from '../../db/hot-path.ts';
import { memberships } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';

/** owner > admin > member > viewer (API.md §1). */
export const ROLE_RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

export const roleAtLeast = (role: Role, minimum: Role) => ROLE_RANK[role] >= ROLE_RANK[minimum];

const ROLE_IN = 'SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2';

/**
 * The caller's role in an organization, if they are a member. The check of nearly every read:
 * outside a transaction it is a prepared raw statement (db/hot-path.ts says why).
 */
export async function roleIn(db: Db | Tx, userId: string, organizationId: string): Promise<Role | undefined> {
  const pool = poolOf(db);
  const [row] = pool
    ? await runPrepared<{ role: Role }>(pool, 'role_in_organization', ROLE_IN, [organizationId, userId])
    : await db
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
  return row?.role;
}

type Requirement = {
  userId: string;
  organizationId: string;
  /** Lowest role allowed (default viewer: any member). */
  minRole?: Role;
  /**
   * How a non-member is answered. `forbidden` (403) when the caller named the organization
   * (a body or query field); `not_found` (404) when it is addressed in the path, so its
   * existence is not revealed.
   */
  outsider?: 'forbidden' | 'not_found';
};

/** A caller who named (in a body or query field) an organization they are not in. */
export const notAMember = () => errors.forbidden('You are not a member of this organization', 'NOT_A_MEMBER');

const insufficientRole = (minRole: Role) =>
  errors.forbidden(`This requires the ${minRole} role or higher`, 'INSUFFICIENT_ROLE');

/** The one authorization check for organization-owned things. Returns the caller's role. */
export async function requireRole(db: Db | Tx, requirement: Requirement): Promise<Role> {
  const { minRole = 'viewer', outsider = 'forbidden' } = requirement;
  const role = await roleIn(db, requirement.userId, requirement.organizationId);
  if (!role) {
    throw outsider === 'not_found' ? errors.notFound('Organization not found') : notAMember();
  }
  if (!roleAtLeast(role, minRole)) throw insufficientRole(minRole);
  return role;
}

/**
 * The organization a request is about when it may name none (AI, analytics and billing routes,
 * API.md §1): the one named, else the caller's default. Naming one the caller is not in is a 403;
 * having no default to fall back on is an error of the request (400, at `path`).
 */
export async function callerOrganization(
  db: Db | Tx,
  user: { id: string; defaultOrganizationId: string | null },
  named: string | undefined,
  options: { path: string; minRole?: Role },
): Promise<{ organizationId: string; role: Role }> {
  const organizationId = named ?? user.defaultOrganizationId;
  const role = organizationId ? await roleIn(db, user.id, organizationId) : undefined;
  if (!organizationId || !role) {
    if (named) throw notAMember();
    throw errors.validation([
      { path: `${options.path}.organizationId`, message: 'is required (you have no default organization)' },
    ]);
  }
  if (options.minRole && !roleAtLeast(role, options.minRole)) throw insufficientRole(options.minRole);
  return { organizationId, role };
}
