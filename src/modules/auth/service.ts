import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { users } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { createOrganization } from '../organizations/service.ts';
import { type AuthUser, createSession } from './sessions.ts';

export type ClientInfo = { userAgent?: string | undefined; ip?: string | undefined };

// The spec's messages, in its auth error shape.
export const authErrors = {
  emailExists: () => new AppError(400, 'EMAIL_EXISTS', 'Email already exists'),
  userNotFound: () => new AppError(401, 'USER_NOT_FOUND', 'User not found'),
  invalidCredentials: () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid credentials'),
  invalidToken: () => new AppError(400, 'INVALID_TOKEN', 'Invalid token'),
};

const authUserColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  avatarUrl: users.avatarUrl,
  defaultOrganizationId: users.defaultOrganizationId,
  createdAt: users.createdAt,
};

/**
 * Creates a user with their personal organization ("<name>'s workspace", owned by them),
 * and opens a session.
 */
export async function signUp(
  context: AppContext,
  input: { email: string; password: string; name: string },
  client: ClientInfo,
) {
  const passwordHash = await hashPassword(input.password);
  return context.db.transaction(async (tx) => {
    const user = await insertUser(tx, { email: input.email, name: input.name, passwordHash });
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
