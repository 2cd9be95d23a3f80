import { signToken, verifySignedToken } from '../../lib/signed-token.ts';

/** How long a verified password opens its link. */
export const ACCESS_TOKEN_SECONDS = 3600;

const PURPOSE = 'share-access';

/**
 * A stateless proof that the caller knew a link's password (see signToken). The link's own
 * expiry still applies, so the token never outlives it.
 */
export function issueAccessToken(
  secret: string,
  link: { id: string; expiresAt: Date | null },
  now: Date,
): { accessToken: string; expiresAt: Date } {
  const lifetimeEnd = now.getTime() + ACCESS_TOKEN_SECONDS * 1000;
  const expiresAt = new Date(link.expiresAt ? Math.min(lifetimeEnd, link.expiresAt.getTime()) : lifetimeEnd);
  return { accessToken: signToken(secret, PURPOSE, link.id, expiresAt), expiresAt };
}

export const isValidAccessToken = (secret: string, linkId: string, token: string | undefined, now: Date) =>
  verifySignedToken(secret, PURPOSE, linkId, token, now);
