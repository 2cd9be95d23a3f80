import { and, count, eq, isNotNull, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { notifications } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { notificationViews } from './queries.ts';
import type { ListNotificationsQuery, NotificationView } from './schemas.ts';

const NOT_FOUND = 'Notification not found';

const ownedBy = (userId: string) => eq(notifications.userId, userId);
const unreadOf = (userId: string) => and(ownedBy(userId), isNull(notifications.readAt));

/** A notification event of the caller's own account. */
const recordOwnActivity = (
  tx: Tx,
  userId: string,
  action: string,
  targetId: string | null,
  metadata?: Record<string, unknown>,
) =>
  recordActivity(tx, {
    organizationId: null,
    actorId: userId,
    action,
    targetType: 'notification',
    targetId,
    metadata,
  });

async function unreadCount(db: Db | Tx, userId: string): Promise<number> {
  const [counted] = await db.select({ total: count() }).from(notifications).where(unreadOf(userId));
  return counted?.total ?? 0;
}

async function notificationView(db: Db | Tx, notificationId: string): Promise<NotificationView> {
  const [view] = await notificationViews(db, eq(notifications.id, notificationId), { limit: 1, offset: 0 });
  if (!view) throw errors.notFound(NOT_FOUND);
  return view;
}

/** The caller's notifications, newest first, with their unread total whatever the filters. */
export async function listNotifications(db: Db, userId: string, query: ListNotificationsQuery) {
  const where = and(
    ownedBy(userId),
    query.unread === undefined
      ? undefined
      : query.unread
        ? isNull(notifications.readAt)
        : isNotNull(notifications.readAt),
    query.type ? eq(notifications.type, query.type) : undefined,
  );
  const [data, [counted], unread] = await Promise.all([
    notificationViews(db, where, pageBounds(query)),
    db.select({ total: count() }).from(notifications).where(where),
    unreadCount(db, userId),
  ]);
  return { ...toPage(data, counted?.total ?? 0, query), unreadCount: unread };
}

/** Marking read keeps the first readAt; activity is recorded only when the state changes. */
export async function markNotification(
  context: AppContext,
  userId: string,
  notificationId: string,
  read: boolean,
) {
  return context.db.transaction(async (tx) => {
    const [notification] = await tx
      .select({ readAt: notifications.readAt, type: notifications.type })
      .from(notifications)
      .where(and(eq(notifications.id, notificationId), ownedBy(userId)))
      .for('update');
    if (!notification) throw errors.notFound(NOT_FOUND);
    if ((notification.readAt !== null) !== read) {
      await tx
        .update(notifications)
        .set({ readAt: read ? context.clock.now() : null })
        .where(eq(notifications.id, notificationId));
      await recordOwnActivity(
        tx,
        userId,
        read ? 'notification.read' : 'notification.unread',
        notificationId,
        {
          type: notification.type,
        },
      );
    }
    return notificationView(tx, notificationId);
  });
}

export async function markAllRead(context: AppContext, userId: string) {
  return context.db.transaction(async (tx) => {
    const marked = await tx
      .update(notifications)
      .set({ readAt: context.clock.now() })
      .where(unreadOf(userId))
      .returning({ id: notifications.id });
    if (marked.length > 0) {
      await recordOwnActivity(tx, userId, 'notification.read_all', null, { count: marked.length });
    }
    return { updated: marked.length, unreadCount: 0 as const };
  });
}

export async function deleteNotification(context: AppContext, userId: string, notificationId: string) {
  await context.db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(notifications)
      .where(and(eq(notifications.id, notificationId), ownedBy(userId)))
      .returning({ type: notifications.type });
    if (!deleted) throw errors.notFound(NOT_FOUND);
    await recordOwnActivity(tx, userId, 'notification.deleted', notificationId, { type: deleted.type });
  });
  return { id: notificationId, deleted: true as const };
}
