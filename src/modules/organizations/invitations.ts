import { and, count, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { invitations, memberships, organizations, users } from '../../db/schema/index.ts';
import type { Role } from '../../db/schema/users.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { addSeconds, type Clock } from '../../lib/clock.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import { announceBillingEvent } from '../billing/notices.ts';
import { reserveSeats } from '../billing/state.ts';
import { queueMail } from '../mail/service.ts';
import { notify } from '../notifications/notify.ts';
import { requireRole, roleAtLeast, roleIn } from './access.ts';
import { managerRole } from './members.ts';

const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

type InvitationRow = typeof invitations.$inferSelect;

function statusOf(row: InvitationRow, now: Date): 'pending' | 'accepted' | 'expired' {
  if (row.acceptedAt) return 'accepted';
  return row.expiresAt <= now ? 'expired' : 'pending';
}

const invitationView = (row: InvitationRow, now: Date) => ({
  id: row.id,
  organizationId: row.organizationId,
  email: row.email,
  role: row.role,
  status: statusOf(row, now),
  expiresAt: row.expiresAt,
  createdAt: row.createdAt,
  invitedBy: row.invitedBy,
});

/**
 * Invites an address to the organization: replaces an earlier unaccepted invitation to it, and
 * mails the new token (shown nowhere else; only its hash is kept).
 */
export async function createInvitation(
  context: AppContext,
  inviter: { id: string; name: string },
  organizationId: string,
  input: { email: string; role: Role },
) {
  return context.db.transaction(async (tx) => {
    await requireRole(tx, {
      userId: inviter.id,
      organizationId,
      minRole: managerRole(input.role),
      outsider: 'not_found',
    });
    // Serialises invitations to one address, so that exactly one of them stays pending.
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`invitation:${organizationId}:${input.email}`}, 0))`,
    );
    const [member] = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.organizationId, organizationId), eq(users.email, input.email)));
    if (member)
      throw errors.badRequest('This person is already a member of the organization', 'ALREADY_MEMBER');

    await tx
      .delete(invitations)
      .where(
        and(
          eq(invitations.organizationId, organizationId),
          eq(invitations.email, input.email),
          isNull(invitations.acceptedAt),
        ),
      );
    const now = context.clock.now();
    const seats = await reserveSeats(tx, context.config, organizationId, 1, now);
    const token = randomToken(32);
    const [row] = await tx
      .insert(invitations)
      .values({
        organizationId,
        email: input.email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedBy: inviter.id,
        expiresAt: addSeconds(now, INVITATION_TTL_SECONDS),
      })
      .returning();
    if (!row) throw new Error('invitation insert returned nothing');
    await recordActivity(tx, {
      organizationId,
      actorId: inviter.id,
      action: 'invitation.created',
      targetType: 'invitation',
      targetId: row.id,
      metadata: { email: row.email, role: row.role },
    });
    const [organization] = await tx
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, organizationId));
    if (!organization) throw errors.notFound('Organization not found');
    await notifyInvitee(tx, context, {
      invitation: row,
      inviterName: inviter.name,
      organizationName: organization.name,
    });
    await queueMail(
      tx,
      context.jobs,
      invitationMail(context.config.appUrl, {
        to: input.email,
        token,
        role: input.role,
        inviterName: inviter.name,
        organizationName: organization.name,
        expiresAt: row.expiresAt,
      }),
    );
    if (seats.full) {
      await announceBillingEvent(tx, context, {
        organizationId,
        actorId: inviter.id,
        action: 'organization.seat_limit_reached',
        targetType: 'organization',
        targetId: organizationId,
        title: `All ${seats.seats} seats of ${organization.name} are taken`,
        body: `The invitation to ${input.email} took the last seat. Add seats in the billing portal to invite more people.`,
        metadata: { seats: seats.seats },
      });
    }
    return invitationView(row, now);
  });
}

/**
 * Tells the invitee in the app too when the address already has an account. Never the token: it
 * travels only by mail (the type's email is 'always', so notify queues no second mail).
 */
async function notifyInvitee(
  tx: Tx,
  context: AppContext,
  {
    invitation,
    inviterName,
    organizationName,
  }: { invitation: InvitationRow; inviterName: string; organizationName: string },
) {
  const [invitee] = await tx.select({ id: users.id }).from(users).where(eq(users.email, invitation.email));
  if (!invitee) return;
  await notify(tx, context, {
    type: 'invitation',
    recipientIds: [invitee.id],
    organizationId: invitation.organizationId,
    actorId: invitation.invitedBy,
    title: `${inviterName} invited you to ${organizationName}`,
    body: `You are invited to join ${organizationName} as ${invitation.role}. The invitation mail sent to ${invitation.email} has the link to accept it.`,
    targetType: 'invitation',
    targetId: invitation.id,
    data: { invitationId: invitation.id, organizationId: invitation.organizationId, role: invitation.role },
  });
}

function invitationMail(
  appUrl: string,
  invitation: {
    to: string;
    token: string;
    role: Role;
    inviterName: string;
    organizationName: string;
    expiresAt: Date;
  },
) {
  const { to, token, inviterName, organizationName } = invitation;
  return {
    to,
    subject: `${inviterName} invited you to ${organizationName} on Knowledge Hub`,
    text: [
      `${inviterName} invited you to join ${organizationName} on Knowledge Hub as ${invitation.role}.`,
      '',
      `Accept the invitation: ${appUrl}/invitations/${token}`,
      '',
      `Already have an account with ${to}? Sign in and send POST /invitations/${token}/accept.`,
      `New to Knowledge Hub? Sign up with ${to} and pass "invitationToken": "${token}" to POST /auth/sign-up.`,
      '',
      `The invitation expires at ${invitation.expiresAt.toISOString()}. If you did not expect it, ignore this mail.`,
    ].join('\n'),
  };
}

export async function listInvitations(
  context: AppContext,
  userId: string,
  organizationId: string,
  page: PageRequest,
) {
  const { db } = context;
  await requireRole(db, { userId, organizationId, minRole: 'admin', outsider: 'not_found' });
  const inOrganization = eq(invitations.organizationId, organizationId);
  const { limit, offset } = pageBounds(page);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(invitations)
      .where(inOrganization)
      .orderBy(desc(invitations.createdAt), desc(invitations.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(invitations).where(inOrganization),
  ]);
  const now = context.clock.now();
  return toPage(
    rows.map((row) => invitationView(row, now)),
    counted?.total ?? 0,
    page,
  );
}

export async function deleteInvitation(
  context: AppContext,
  userId: string,
  organizationId: string,
  invitationId: string,
) {
  await context.db.transaction(async (tx) => {
    const caller = { userId, organizationId, outsider: 'not_found' as const };
    await requireRole(tx, { ...caller, minRole: 'admin' });
    const [invitation] = await tx
      .select({ role: invitations.role, email: invitations.email })
      .from(invitations)
      .where(and(eq(invitations.id, invitationId), eq(invitations.organizationId, organizationId)));
    if (!invitation) throw errors.notFound('Invitation not found');
    await requireRole(tx, { ...caller, minRole: managerRole(invitation.role) });
    await tx.delete(invitations).where(eq(invitations.id, invitationId));
    await recordActivity(tx, {
      organizationId,
      actorId: userId,
      action: 'invitation.revoked',
      targetType: 'invitation',
      targetId: invitationId,
      metadata: { email: invitation.email, role: invitation.role },
    });
  });
  return { id: invitationId, deleted: true as const };
}

/**
 * The pending invitation a token names, locked for the rest of the transaction (so that it is
 * accepted once), or undefined when the token is unknown, used or expired.
 */
export async function pendingInvitation(
  tx: Tx,
  clock: Clock,
  token: string,
): Promise<InvitationRow | undefined> {
  const [invitation] = await tx
    .select()
    .from(invitations)
    .where(
      and(
        eq(invitations.tokenHash, hashToken(token)),
        isNull(invitations.acceptedAt),
        gt(invitations.expiresAt, clock.now()),
      ),
    )
    .for('update');
  return invitation;
}

/**
 * Makes the user a member with the invited role (never lowering a role they already hold),
 * marks the invitation accepted, and makes the organization their default if they have none.
 */
export async function joinFromInvitation(
  tx: Tx,
  context: Pick<AppContext, 'clock' | 'config'>,
  invitation: InvitationRow,
  userId: string,
) {
  const now = context.clock.now();
  const { organizationId } = invitation;
  const existing = await roleIn(tx, userId, organizationId);
  // The invitation holds the seat the new member takes; an organization over its seats (after a
  // downgrade) takes nobody new until it is within them again.
  if (!existing) await reserveSeats(tx, context.config, organizationId, 0, now);
  const role = existing && roleAtLeast(existing, invitation.role) ? existing : invitation.role;
  await tx
    .insert(memberships)
    .values({ organizationId, userId, role })
    .onConflictDoUpdate({
      target: [memberships.organizationId, memberships.userId],
      set: { role, updatedAt: now },
    });
  await tx
    .update(invitations)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(eq(invitations.id, invitation.id));
  await tx
    .update(users)
    .set({ defaultOrganizationId: organizationId })
    .where(and(eq(users.id, userId), isNull(users.defaultOrganizationId)));
  // The token reached this user at the invited address (which matches theirs): that proves the address.
  await tx
    .update(users)
    .set({ emailVerifiedAt: now })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
  await recordActivity(tx, {
    organizationId,
    actorId: userId,
    action: 'invitation.accepted',
    targetType: 'invitation',
    targetId: invitation.id,
    metadata: { role },
  });
  return { organizationId, role };
}

export async function acceptInvitation(
  context: AppContext,
  user: { id: string; email: string },
  token: string,
) {
  return context.db.transaction(async (tx) => {
    const invitation = await pendingInvitation(tx, context.clock, token);
    if (!invitation) {
      throw errors.notFound('Invitation not found, already used or expired', 'INVITATION_NOT_FOUND');
    }
    if (invitation.email !== user.email) {
      throw errors.forbidden(
        'This invitation was sent to another email address',
        'INVITATION_EMAIL_MISMATCH',
      );
    }
    return joinFromInvitation(tx, context, invitation, user.id);
  });
}
