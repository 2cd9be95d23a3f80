import { and, asc, count, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { memberships, organizations, users } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { notify } from '../notifications/notify.ts';
import { requireRole } from './access.ts';
import { reassignDefaultOrganization } from './service.ts';

/** The role needed to grant or take away these roles: owners manage owners, admins everyone else. */
export const managerRole = (...roles: Role[]): Role => (roles.includes('owner') ? 'owner' : 'admin');

const memberColumns = {
  userId: users.id,
  name: users.name,
  email: users.email,
  avatarUrl: users.avatarUrl,
  role: memberships.role,
  joinedAt: memberships.createdAt,
};

const membershipOf = (organizationId: string, userId: string) =>
  and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId));

const lastOwner = () =>
  errors.badRequest(
    'The last owner cannot leave or be demoted; make another member owner first',
    'LAST_OWNER',
  );

export async function listMembers(db: Db, userId: string, organizationId: string, page: PageRequest) {
  await requireRole(db, { userId, organizationId, outsider: 'not_found' });
  const inOrganization = eq(memberships.organizationId, organizationId);
  const { limit, offset } = pageBounds(page);
  const [data, [counted]] = await Promise.all([
    db
      .select(memberColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(inOrganization)
      .orderBy(asc(memberships.createdAt), asc(memberships.userId))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(memberships).where(inOrganization),
  ]);
  return toPage(data, counted?.total ?? 0, page);
}

/**
 * Locks the organization's owner memberships for the rest of the transaction. Every change that
 * can take an owner away takes this lock first, so two of them cannot each see "another owner
 * remains" and together leave none.
 */
async function lockOwners(tx: Tx, organizationId: string): Promise<string[]> {
  const owners = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'owner')))
    .orderBy(asc(memberships.userId))
    .for('update');
  return owners.map((owner) => owner.userId);
}

async function lockMemberRole(tx: Tx, organizationId: string, userId: string): Promise<Role> {
  const [member] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(membershipOf(organizationId, userId))
    .for('update');
  if (!member) throw errors.notFound('Member not found');
  return member.role;
}

async function notifyRoleChange(
  tx: Tx,
  context: AppContext,
  change: { organizationId: string; actorId: string; memberId: string; from: Role; to: Role },
) {
  const [names] = await tx
    .select({ organization: organizations.name, actor: users.name })
    .from(organizations)
    .innerJoin(users, eq(users.id, change.actorId))
    .where(eq(organizations.id, change.organizationId));
  if (!names) throw errors.notFound('Organization not found');
  const { organizationId, from, to } = change;
  await notify(tx, context, {
    type: 'role_change',
    recipientIds: [change.memberId],
    organizationId,
    actorId: change.actorId,
    title: `Your role in ${names.organization} is now ${to}`,
    body: `${names.actor} changed your role from ${from} to ${to}.`,
    targetType: 'organization',
    targetId: organizationId,
    data: { organizationId, from, to },
  });
}

export async function updateMemberRole(
  context: AppContext,
  callerId: string,
  organizationId: string,
  memberId: string,
  role: Role,
) {
  return context.db.transaction(async (tx) => {
    const caller = { userId: callerId, organizationId, outsider: 'not_found' as const };
    await requireRole(tx, { ...caller, minRole: 'admin' });
    const owners = await lockOwners(tx, organizationId);
    const current = await lockMemberRole(tx, organizationId, memberId);
    await requireRole(tx, { ...caller, minRole: managerRole(current, role) });
    if (current === 'owner' && role !== 'owner' && owners.length <= 1) throw lastOwner();
    await tx
      .update(memberships)
      .set({ role, updatedAt: context.clock.now() })
      .where(membershipOf(organizationId, memberId));
    await recordActivity(tx, {
      organizationId,
      actorId: callerId,
      action: 'member.role_changed',
      targetType: 'user',
      targetId: memberId,
      metadata: { from: current, to: role },
    });
    if (current !== role) {
      await notifyRoleChange(tx, context, {
        organizationId,
        actorId: callerId,
        memberId,
        from: current,
        to: role,
      });
    }
    const [member] = await tx
      .select(memberColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(membershipOf(organizationId, memberId));
    if (!member) throw errors.notFound('Member not found');
    return member;
  });
}

/** Removes a member, or lets the caller leave (`memberId` is the caller). */
export async function removeMember(
  context: AppContext,
  callerId: string,
  organizationId: string,
  memberId: string,
) {
  const leaving = memberId === callerId;
  await context.db.transaction(async (tx) => {
    const caller = { userId: callerId, organizationId, outsider: 'not_found' as const };
    await requireRole(tx, { ...caller, minRole: leaving ? 'viewer' : 'admin' });
    const owners = await lockOwners(tx, organizationId);
    const current = await lockMemberRole(tx, organizationId, memberId);
    if (!leaving) await requireRole(tx, { ...caller, minRole: managerRole(current) });
    if (current === 'owner' && owners.length <= 1) throw lastOwner();
    await tx.delete(memberships).where(membershipOf(organizationId, memberId));
    await reassignDefaultOrganization(tx, organizationId, memberId);
    await recordActivity(tx, {
      organizationId,
      actorId: callerId,
      action: leaving ? 'member.left' : 'member.removed',
      targetType: 'user',
      targetId: memberId,
      metadata: { role: current },
    });
  });
  return { userId: memberId, removed: true as const };
}
