import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { notificationPreferences } from '../../db/schema/index.ts';
import { recordActivity } from '../activity/service.ts';
import type { NotificationPreferences, PreferencesChange } from './schemas.ts';
import { emailIsOptional, NOTIFICATION_TYPES, notificationTypes } from './types.ts';

type Channels = { inApp: boolean; email: boolean };

/** Every type with the stored choice or, without one, the type's default. */
async function preferencesOf(db: Db | Tx, userId: string): Promise<NotificationPreferences> {
  const rows = await db
    .select()
    .from(notificationPreferences)
    .where(eq(notificationPreferences.userId, userId));
  const stored = new Map(rows.map((row) => [row.type, row]));
  return Object.fromEntries(
    notificationTypes.map((type) => {
      const defaults = NOTIFICATION_TYPES[type];
      const row = stored.get(type);
      // A mail that is always sent is reported as on, whatever a row says.
      const email = emailIsOptional(type) ? (row?.email ?? defaults.email === true) : true;
      return [type, { inApp: row?.inApp ?? defaults.inApp, email }];
    }),
  ) as NotificationPreferences;
}

export const getPreferences = async (db: Db, userId: string) => ({
  preferences: await preferencesOf(db, userId),
});

/**
 * Applies a partial change: types and channels left out keep their setting. Only types whose
 * setting actually changes are written (both channels, so the row no longer depends on defaults).
 */
export async function updatePreferences(context: AppContext, userId: string, change: PreferencesChange) {
  return context.db.transaction(async (tx) => {
    // Serialises concurrent changes of one person's preferences, so that none is lost in the merge.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${`notification-preferences:${userId}`}, 0))`,
    );
    const current = await preferencesOf(tx, userId);
    const changed: Record<string, Partial<Channels>> = {};
    const rows: Array<typeof notificationPreferences.$inferInsert> = [];
    for (const type of notificationTypes) {
      const requested = change[type];
      if (!requested) continue;
      const was = current[type];
      const next = { inApp: requested.inApp ?? was.inApp, email: requested.email ?? was.email };
      const differences = Object.fromEntries(
        (['inApp', 'email'] as const)
          .filter((channel) => next[channel] !== was[channel])
          .map((c) => [c, next[c]]),
      );
      if (Object.keys(differences).length === 0) continue;
      changed[type] = differences;
      rows.push({ userId, type, ...next, updatedAt: context.clock.now() });
    }
    if (rows.length === 0) return { preferences: current };
    await tx
      .insert(notificationPreferences)
      .values(rows)
      .onConflictDoUpdate({
        target: [notificationPreferences.userId, notificationPreferences.type],
        set: {
          inApp: sql`excluded.in_app`,
          email: sql`excluded.email`,
          updatedAt: sql`excluded.updated_at`,
        },
      });
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'notification_preferences.updated',
      targetType: 'user',
      targetId: userId,
      metadata: { changed },
    });
    return { preferences: await preferencesOf(tx, userId) };
  });
}
