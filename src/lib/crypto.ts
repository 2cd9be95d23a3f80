import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

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

/** The key that seals secrets the service must read back (webhook signing secrets), derived from SECRET. */
const sealingKey = (secret: string) =>
  Buffer.from(hkdfSync('sha256', secret, '', 'knowledge-hub sealed secrets', 32));

/**
 * Encrypts a secret the service has to use again (unlike passwords and tokens, which are hashed):
 * AES-256-GCM, so a database dump alone reveals nothing and a tampered value does not open.
 * Changing SECRET makes sealed values unreadable.
 */
export function sealSecret(secret: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function openSecret(secret: string, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
