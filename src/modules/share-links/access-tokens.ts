import { hmac, safeEqual } from '../../lib/crypto.ts';

/** How long a verified password opens its link. */
export const ACCESS_TOKEN_SECONDS = 3600;

const signature = (secret: string, linkId: string, expiresAtMs: number) =>
  hmac(secret, `share-access:${linkId}:${expiresAtMs}`);

/**
 * A stateless proof that the caller knew a link's password: `<expiry ms>.<HMAC over link id and
 * expiry>`. It names no link itself; it only opens the one it was issued for. The link's own
 * expiry still applies, so the token never outlives it.
 */
export function issueAccessToken(
  secret: string,
  link: { id: string; expiresAt: Date | null },
  now: Date,
): { accessToken: string; expiresAt: Date } {
  const lifetimeEnd = now.getTime() + ACCESS_TOKEN_SECONDS * 1000;
  const expiresAtMs = link.expiresAt ? Math.min(lifetimeEnd, link.expiresAt.getTime()) : lifetimeEnd;
  return {
    accessToken: `${expiresAtMs}.${signature(secret, link.id, expiresAtMs)}`,
    expiresAt: new Date(expiresAtMs),
  };
}

export function isValidAccessToken(secret: string, linkId: string, token: string | undefined, now: Date) {
  const match = token === undefined ? null : /^(\d{1,15})\.([\w-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) return false;
  const expiresAtMs = Number(match[1]);
  // The signature is checked even for an expired token so that timing does not tell the two apart.
  const signed = safeEqual(match[2], signature(secret, linkId, expiresAtMs));
  return signed && expiresAtMs > now.getTime();
}
