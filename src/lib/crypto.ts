import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** An unguessable token: `bytes` random bytes, base64url (32 bytes → 43 characters). */
export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** How secrets (session tokens, API keys, reset and invitation tokens) are stored: their SHA-256. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const hmac = (secret: string, value: string) =>
  createHmac('sha256', secret).update(value).digest('base64url');

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
