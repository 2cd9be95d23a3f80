import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { users } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/service.ts';
import { joinFromInvitation, pendingInvitation } from '../organizations/invitations.ts';
import { createOrganization } from '../organizations/service.ts';
import { type AuthUser, authUserColumns, createSession } from './sessions.ts';

export type ClientInfo = { userAgent?: string | undefined; ip?: string | undefined };

// The spec's messages, in its auth error shape.
export const authErrors = {
  emailExists: () => new AppError(400, 'EMAIL_EXISTS', 'Email already exists'),
  userNotFound: () => new AppError(401, 'USER_NOT_FOUND', 'User not found'),
  invalidCredentials: () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid credentials'),
  invalidToken: () => new AppError(400, 'INVALID_TOKEN', 'Invalid token'),
};

/**
 * Creates a user with their personal organization ("<name>'s workspace", owned by them),
 * and opens a session. Signing up with an invitation token for this email joins the inviting
 * organization instead (with the invited role, as the default organization), and uses the invitation.
 */
export async function signUp(
  context: AppContext,
  input: { email: string; password: string; name: string; invitationToken?: string | undefined },
  client: ClientInfo,
) {
  const passwordHash = await hashPassword(input.password);
  return context.db.transaction(async (tx) => {
    let invitation: Awaited<ReturnType<typeof pendingInvitation>>;
    if (input.invitationToken !== undefined) {
      invitation = await pendingInvitation(tx, context.clock, input.invitationToken);
      // Unknown, used, expired, or sent to another address: all the same to the caller.
      if (invitation?.email !== input.email) throw authErrors.invalidToken();
    }
    const user = await insertUser(tx, {
      email: input.email,
      name: input.name,
      passwordHash,
      personalOrganization: !invitation,
    });
    if (invitation) {
      const { organizationId } = await joinFromInvitation(tx, context, invitation, user.id);
      user.defaultOrganizationId = organizationId;
    }
    const session = await createSession(tx, context.clock, { userId: user.id, ...client });
    return { user, session };
  });
}

/** Inserts a user and their personal organization. Shared by sign-up and OAuth sign-in. */
export async function insertUser(
  tx: Tx,
  input: {
    email: string;
    name: string;
    passwordHash?: string | null;
    avatarUrl?: string | null;
    emailVerifiedAt?: Date | null;
    /** False for a user who joins an organization from an invitation instead. */
    personalOrganization?: boolean;
  },
): Promise<AuthUser> {
  const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, input.email));
  if (existing) throw authErrors.emailExists();
  const [user] = await tx
    .insert(users)
    .values({
      email: input.email,
      name: input.name,
      passwordHash: input.passwordHash ?? null,
      avatarUrl: input.avatarUrl ?? null,
      emailVerifiedAt: input.emailVerifiedAt ?? null,
    })
    .onConflictDoNothing()
    .returning(authUserColumns);
  // A concurrent sign-up with the same email won the race.
  if (!user) throw authErrors.emailExists();
  await recordActivity(tx, {
    organizationId: null,
    actorId: user.id,
    action: 'user.signed_up',
    targetType: 'user',
    targetId: user.id,
    metadata: { method: input.passwordHash ? 'password' : 'oauth' },
  });
  if (input.personalOrganization === false) return user;
  const organization = await createOrganization(tx, { name: `${input.name}'s workspace`, ownerId: user.id });
  await tx.update(users).set({ defaultOrganizationId: organization.id }).where(eq(users.id, user.id));
  return { ...user, defaultOrganizationId: organization.id };
}

export async function signIn(
  context: AppContext,
  input: { email: string; password: string },
  client: ClientInfo,
) {
  const [row] = await context.db
    .select({ ...authUserColumns, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, input.email));
  if (!row) throw authErrors.userNotFound();
  // An OAuth-only account has no password: every password is wrong for it.
  if (!row.passwordHash || !(await verifyPassword(row.passwordHash, input.password))) {
    throw authErrors.invalidCredentials();
  }
  const { passwordHash: _, ...user } = row;
  const session = await createSession(context.db, context.clock, { userId: user.id, ...client });
  return { user, session };
}
