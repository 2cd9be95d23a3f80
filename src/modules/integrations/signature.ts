import { createHmac } from 'node:crypto';

/**
 * The `x-khub-signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, as Stripe
 * signs its webhooks. The timestamp is signed too, so a captured request cannot be replayed later
 * with a fresh time; receivers reject a `t` older than a few minutes (docs/integrations.md).
 */
export function signatureHeader(secret: string, body: string, at: Date): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${digest}`;
}
