import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { apiKeys, passwordResetTokens, users } from '../../db/schema/index.ts';
import { addSeconds } from '../../lib/clock.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { recordActivity } from '../activity/service.ts';
import { queueMail } from '../mail/service.ts';
import { authErrors } from './service.ts';
import { revokeAllSessions } from './sessions.ts';

export const RESET_TOKEN_TTL_SECONDS = 3600;

/** The same answer for known and unknown addresses, so the endpoint does not reveal who has an account. */
export const RESET_REQUESTED_MESSAGE =
  'If an account exists for this email, a link to reset its password has been sent to it.';
export const PASSWORD_RESET_MESSAGE = 'Password updated. Sign in with the new password.';

const resetMailText = (link: string, token: string) =>
  [
    'Someone asked to reset the password of your Knowledge Hub account.',
    '',
    'Open this link within one hour to choose a new password:',
    link,
    '',
    `Or enter this reset token: ${token}`,
    '',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
  ].join('\n');

/** For a known email, stores a one-time token (its hash only) and queues the mail that carries it. */
export async function requestPasswordReset(context: AppContext, email: string): Promise<void> {
  await context.db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.email, email));
    if (!user) return;
    const token = randomToken(32);
    await tx.insert(passwordResetTokens).values({
      userId: user.id,
      tokenHash: hashToken(token),
      expiresAt: addSeconds(context.clock.now(), RESET_TOKEN_TTL_SECONDS),
    });
    const link = `${context.config.appUrl}/reset-password?token=${encodeURIComponent(token)}`;
    await queueMail(tx, context.jobs, {
      to: user.email,
      subject: 'Reset your Knowledge Hub password',
      text: resetMailText(link, token),
    });
  });
}

/**
 * Spends a reset token: sets the new password and signs the user out everywhere. The token is
 * claimed by one conditional UPDATE, so two concurrent confirmations cannot both succeed.
 */
export async function confirmPasswordReset(
  context: AppContext,
  input: { token: string; password: string },
): Promise<void> {
  await context.db.transaction(async (tx) => {
    const now = context.clock.now();
    const [claimed] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(passwordResetTokens.tokenHash, hashToken(input.token)),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, now),
        ),
      )
      .returning({ userId: passwordResetTokens.userId });
    if (!claimed) throw authErrors.invalidToken();

    // Hashed only once the token is known to be good, so bogus tokens cost no argon2 work.
    const passwordHash = await hashPassword(input.password);
    await tx
      .update(users)
      .set({
        passwordHash,
        // Following the mailed link proved control of the mailbox.
        emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now.toISOString()}::timestamptz)`,
        updatedAt: now,
      })
      .where(eq(users.id, claimed.userId));
    // Links mailed by earlier requests must not set the password again.
    await tx
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordResetTokens.userId, claimed.userId), isNull(passwordResetTokens.usedAt)));
    // A reset recovers an account: every credential minted before it goes, API keys included.
    await revokeAllSessions(tx, claimed.userId);
    await tx.delete(apiKeys).where(eq(apiKeys.userId, claimed.userId));
    await recordActivity(tx, {
      organizationId: null,
      actorId: claimed.userId,
      action: 'password.reset',
      targetType: 'user',
      targetId: claimed.userId,
    });
  });
}
