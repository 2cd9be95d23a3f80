import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { apiKeys } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import { API_KEY_PREFIX } from '../auth/sessions.ts';

/** `khk_` and 8 characters of the key: enough to tell keys apart, far too little to guess the rest. */
const SHOWN_PREFIX_LENGTH = 12;

const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
};

/** Issues a key. The key itself is returned only here; the database keeps its SHA-256. */
export async function createApiKey(
  context: AppContext,
  userId: string,
  input: { name: string; expiresAt?: Date | null | undefined },
) {
  if (input.expiresAt && input.expiresAt <= context.clock.now()) {
    throw errors.validation([{ path: 'body.expiresAt', message: 'must be in the future' }]);
  }
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  return context.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiKeys)
      .values({
        userId,
        name: input.name,
        prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
        keyHash: hashToken(key),
        expiresAt: input.expiresAt ?? null,
      })
      .returning(publicColumns);
    if (!row) throw new Error('api key insert returned nothing');
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: row.id,
      // The shown prefix only: it identifies the key without being usable.
      metadata: { name: row.name, prefix: row.prefix },
    });
    return { ...row, key };
  });
}

/** The user's keys, newest first, expired ones included (so they can be seen and deleted). */
export async function listApiKeys(db: Db | Tx, userId: string) {
  return db
    .select(publicColumns)
    .from(apiKeys)
    .where(eq(apiKeys.userId, userId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** Someone else's key answers 404, as an unknown one does. */
export async function deleteApiKey(context: AppContext, userId: string, id: string) {
  return context.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId)))
      .returning({ id: apiKeys.id, name: apiKeys.name });
    if (!row) throw errors.notFound('API key not found');
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'api_key.deleted',
      targetType: 'api_key',
      targetId: row.id,
      metadata: { name: row.name },
    });
    return { id: row.id, deleted: true as const };
  });
}
