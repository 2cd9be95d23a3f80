import { hmac, safeEqual } from './crypto.ts';

const signature = (secret: string, purpose: string, subject: string, expiresAtMs: number) =>
  hmac(secret, `${purpose}:${subject}:${expiresAtMs}`);

/**
 * A stateless, expiring proof issued for one thing: `<expiry ms>.<HMAC over purpose, subject and
 * expiry>`. It names nothing itself; it opens only the subject it was issued for, for one purpose.
 */
export function signToken(secret: string, purpose: string, subject: string, expiresAt: Date): string {
  const expiresAtMs = expiresAt.getTime();
  return `${expiresAtMs}.${signature(secret, purpose, subject, expiresAtMs)}`;
}

export function verifySignedToken(
  secret: string,
  purpose: string,
  subject: string,
  token: string | undefined,
  now: Date,
): boolean {
  const match = token === undefined ? null : /^(\d{1,15})\.([\w-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) return false;
  const expiresAtMs = Number(match[1]);
  // The signature is checked even for an expired token so that timing does not tell the two apart.
  const signed = safeEqual(match[2], signature(secret, purpose, subject, expiresAtMs));
  return signed && expiresAtMs > now.getTime();
}
