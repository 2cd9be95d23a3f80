import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Db, Tx } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema/index.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { errors } from './errors.ts';

/** How long an answer is kept for its key (Stripe keeps them 24 hours too). */
const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The `Idempotency-Key` request header, for a route's `headers` schema. */
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters without spaces')
    .optional()
    .meta({
      description:
        'Makes the write safe to retry: the same key from the same person on this operation, within 24 hours, ' +
        'gets the first answer again (with `Idempotent-Replayed: true`) and has no second effect. ' +
        'A key sent again with a different body is refused (400 IDEMPOTENCY_KEY_REUSED).',
    }),
});

type IdempotentRequest = {
  userId: string;
  /** The operation, e.g. `POST /billing/checkout`; a key is scoped to it. */
  operation: string;
  key: string | undefined;
  /** What the request asks for; a key sent again must ask for the same. */
  payload: unknown;
};

const hashOf = (payload: unknown) =>
  createHash('sha256')
    .update(JSON.stringify(payload ?? null))
    .digest('hex');

/**
 * Runs `work` in a transaction, once per idempotency key. The key is claimed by inserting it in
 * that transaction: a second request with the key waits on the first one's row until it commits
 * (then it reads the stored answer) or rolls back (then it does the work itself). The answer is
 * stored as the response schema encodes it, and decoded the same way when it is replayed.
 */
export async function idempotently<S extends z.ZodType>(
  db: Db,
  request: IdempotentRequest,
  responseSchema: S,
  work: (tx: Tx) => Promise<z.output<S>>,
): Promise<{ result: z.output<S>; replayed: boolean }> {
  const { key } = request;
  if (key === undefined) return { result: await db.transaction(work), replayed: false };
  const requestHash = hashOf(request.payload);
  return db.transaction(async (tx) => {
    const thisKey = and(
      eq(idempotencyKeys.userId, request.userId),
      eq(idempotencyKeys.operation, request.operation),
      eq(idempotencyKeys.key, key),
    );
    // A key older than its lifetime is forgotten, whether or not the hourly sweep has run.
    await tx
      .delete(idempotencyKeys)
      .where(and(thisKey, lt(idempotencyKeys.createdAt, new Date(Date.now() - KEY_LIFETIME_MS))));
    const claimed = await tx
      .insert(idempotencyKeys)
      .values({ userId: request.userId, operation: request.operation, key, requestHash })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 0) {
      const [stored] = await tx.select().from(idempotencyKeys).where(thisKey);
      if (!stored || stored.requestHash !== requestHash) {
        throw errors.badRequest(
          'This Idempotency-Key was already used with a different request',
          'IDEMPOTENCY_KEY_REUSED',
        );
      }
      return { result: z.decode(responseSchema, stored.response as z.input<S>), replayed: true };
    }
    const result = await work(tx);
    await tx
      .update(idempotencyKeys)
      .set({ response: z.encode(responseSchema, result) })
      .where(thisKey);
    return { result, replayed: false };
  });
}

/** Tells the client the answer is a replay, as Stripe does. */
export function markReplay(reply: FastifyReply, replayed: boolean) {
  if (replayed) reply.header('idempotent-replayed', 'true');
}

/** Forgets keys older than a day. */
export async function expireIdempotencyKeys(db: Db | Tx, now: Date) {
  await db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - KEY_LIFETIME_MS)));
}

export const idempotencyCleanupJob: JobDefinition = {
  name: 'idempotency-key-cleanup',
  cron: '17 * * * *',
  handler: async (_data, { db }) => expireIdempotencyKeys(db, new Date()),
};
