import { and, asc, desc, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { retriedTransaction } from '../../db/errors.ts';
import {
  invitations,
  memberships,
  oauthAccounts,
  organizations,
  sessions,
  users,
} from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordActivity } from '../activity/service.ts';
import { findBetaAccessRequest } from '../beta-access/service.ts';
import { requireRole } from '../organizations/access.ts';
import { listApiKeys } from './api-keys.ts';

const profileColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  avatarUrl: users.avatarUrl,
  defaultOrganizationId: users.defaultOrganizationId,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

/** The user and the organizations they belong to, with their role in each. */
export async function getProfile(db: Db | Tx, userId: string) {
  const [user] = await db.select(profileColumns).from(users).where(eq(users.id, userId));
  // Authentication found the user a moment ago: only a concurrent account deletion gets here.
  if (!user) throw errors.unauthorized('Invalid session', 'INVALID_SESSION');
  const userOrganizations = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      slug: organizations.slug,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(organizations.name), asc(organizations.id));
  return { ...user, organizations: userOrganizations };
}

export async function updateProfile(
  context: AppContext,
  userId: string,
  input: {
    name?: string | undefined;
    avatarUrl?: string | null | undefined;
    defaultOrganizationId?: string | undefined;
  },
) {
  return context.db.transaction(async (tx) => {
    // Naming an organization in a body field one is not in is a 403, as on every route (identity.md).
    if (input.defaultOrganizationId !== undefined) {
      await requireRole(tx, { userId, organizationId: input.defaultOrganizationId });
    }
    // Drizzle leaves out fields that are undefined; an empty PATCH changes nothing, updatedAt included.
    const changed = Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([field]) => field);
    if (changed.length > 0) {
      await tx
        .update(users)
        .set({
          name: input.name,
          avatarUrl: input.avatarUrl,
          defaultOrganizationId: input.defaultOrganizationId,
          updatedAt: context.clock.now(),
        })
        .where(eq(users.id, userId));
      await recordActivity(tx, {
        organizationId: null,
        actorId: userId,
        action: 'user.updated',
        targetType: 'user',
        targetId: userId,
        metadata: { fields: changed },
      });
    }
    return getProfile(tx, userId);
  });
}

/**
 * Deletes the user (their sessions, keys and memberships go with them) and every organization
 * they are the only member of. Refused while they are the only owner of an organization that
 * has other members, which would be left without an owner.
 */
export async function deleteAccount(context: AppContext, userId: string) {
  return retriedTransaction(context.db, async (tx) => {
    // Locked first and counted after, in a fresh snapshot: two co-owners deleting their accounts
    // at once must not each count the other as the remaining owner.
    const locked = await tx
      .select({ id: organizations.id })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
      .where(eq(memberships.userId, userId))
      .for('update', { of: organizations });
    const ids = locked.map((row) => row.id);
    const counted =
      ids.length === 0
        ? []
        : await tx
            .select({
              id: organizations.id,
              name: organizations.name,
              members: sql<number>`count(*)`.mapWith(Number),
              owners: sql<number>`count(*) filter (where ${memberships.role} = 'owner')`.mapWith(Number),
              isOwner: sql<boolean>`bool_or(${memberships.userId} = ${userId} and ${memberships.role} = 'owner')`,
            })
            .from(organizations)
            .innerJoin(memberships, eq(memberships.organizationId, organizations.id))
            .where(inArray(organizations.id, ids))
            .groupBy(organizations.id)
            .orderBy(asc(organizations.name));

    const orphaned = counted.filter((org) => org.isOwner && org.owners === 1 && org.members > 1);
    if (orphaned.length > 0) {
      const names = orphaned.map((org) => `"${org.name}"`).join(', ');
      throw errors.badRequest(
        `You are the only owner of ${names}, which ${orphaned.length > 1 ? 'have' : 'has'} other members: make another member an owner or remove them first`,
        'SOLE_OWNER',
      );
    }
    const alone = counted.filter((org) => org.members === 1).map((org) => org.id);
    if (alone.length > 0) await tx.delete(organizations).where(inArray(organizations.id, alone));
    await tx.delete(users).where(eq(users.id, userId));
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'user.deleted',
      targetType: 'user',
      targetId: userId,
      metadata: { organizationsDeleted: alone.length },
    });
    return { id: userId, deleted: true as const };
  });
}

const sessionColumns = {
  id: sessions.id,
  createdAt: sessions.createdAt,
  expiresAt: sessions.expiresAt,
  lastUsedAt: sessions.lastUsedAt,
  userAgent: sessions.userAgent,
  ip: sessions.ip,
};

// Expired sessions linger until the cleanup job (so their owner hears "Session expired"); they are not listed or revoked here.
const activeSessionsOf = (userId: string, clock: Clock) =>
  and(eq(sessions.userId, userId), gt(sessions.expiresAt, clock.now()));

/** The user's active sessions, newest first; `current` marks the caller's. */
export async function listSessions(
  db: Db | Tx,
  clock: Clock,
  userId: string,
  currentSessionId: string | null,
) {
  const rows = await db
    .select(sessionColumns)
    .from(sessions)
    .where(activeSessionsOf(userId, clock))
    .orderBy(desc(sessions.createdAt), desc(sessions.id));
  return rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
}

/** Someone else's session answers 404, as an unknown one does. */
export async function revokeSession(context: AppContext, userId: string, sessionId: string) {
  return context.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(sessions)
      .where(and(eq(sessions.id, sessionId), activeSessionsOf(userId, context.clock)))
      .returning({ id: sessions.id });
    if (!row) throw errors.notFound('Session not found');
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'session.revoked',
      targetType: 'session',
      targetId: row.id,
    });
    return { id: row.id, deleted: true as const };
  });
}

/** Revokes every active session but `keepSessionId` (all of them when it is null: an API key caller). */
export async function revokeOtherSessions(context: AppContext, userId: string, keepSessionId: string | null) {
  return context.db.transaction(async (tx) => {
    const removed = await tx
      .delete(sessions)
      .where(
        and(
          activeSessionsOf(userId, context.clock),
          keepSessionId ? ne(sessions.id, keepSessionId) : undefined,
        ),
      )
      .returning({ id: sessions.id });
    if (removed.length > 0) {
      await recordActivity(tx, {
        organizationId: null,
        actorId: userId,
        action: 'session.revoked',
        targetType: 'session',
        targetId: null,
        metadata: { count: removed.length },
      });
    }
    return { deleted: removed.length };
  });
}

/** Everything stored about the user, read in one snapshot. Secrets and their hashes are never part of it. */
export async function exportUserData(context: AppContext, userId: string, currentSessionId: string | null) {
  return context.db.transaction(
    async (tx) => {
      const [profile] = await tx
        .select({
          ...profileColumns,
          emailVerifiedAt: users.emailVerifiedAt,
          hasPassword: sql<boolean>`${users.passwordHash} is not null`,
        })
        .from(users)
        .where(eq(users.id, userId));
      if (!profile) throw errors.unauthorized('Invalid session', 'INVALID_SESSION');
      const linkedAccounts = await tx
        .select({
          provider: oauthAccounts.provider,
          email: oauthAccounts.email,
          createdAt: oauthAccounts.createdAt,
        })
        .from(oauthAccounts)
        .where(eq(oauthAccounts.userId, userId))
        .orderBy(asc(oauthAccounts.createdAt));
      const userMemberships = await tx
        .select({
          organizationId: organizations.id,
          organizationName: organizations.name,
          role: memberships.role,
          joinedAt: memberships.createdAt,
        })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(eq(memberships.userId, userId))
        .orderBy(asc(memberships.createdAt), asc(organizations.name));
      const invitationsSent = await tx
        .select({
          id: invitations.id,
          organizationId: invitations.organizationId,
          email: invitations.email,
          role: invitations.role,
          createdAt: invitations.createdAt,
          expiresAt: invitations.expiresAt,
          acceptedAt: invitations.acceptedAt,
        })
        .from(invitations)
        .where(eq(invitations.invitedBy, userId))
        .orderBy(desc(invitations.createdAt));
      const betaAccessRequest = await findBetaAccessRequest(tx, profile.email);
      return {
        exportedAt: context.clock.now(),
        profile,
        linkedAccounts,
        memberships: userMemberships,
        sessions: await listSessions(tx, context.clock, userId, currentSessionId),
        apiKeys: await listApiKeys(tx, userId),
        invitationsSent,
        betaAccessRequest,
      };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
