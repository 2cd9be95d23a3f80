import { eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../../db/client.ts';
import { notifications, users } from '../../db/schema/index.ts';
import type { NotificationView } from './schemas.ts';
import type { NotificationType } from './types.ts';

const actors = alias(users, 'actor');

/** Notifications as the API shows them (with their actor), filtered by `where`, newest first. */
export async function notificationViews(
  db: Db | Tx,
  where: SQL | undefined,
  page: { limit: number; offset: number } = { limit: 100, offset: 0 },
): Promise<NotificationView[]> {
  const rows = await db
    .select({
      notification: notifications,
      actor: { id: actors.id, name: actors.name, avatarUrl: actors.avatarUrl },
    })
    .from(notifications)
    .leftJoin(actors, eq(actors.id, notifications.actorId))
    .where(where)
    .orderBy(sql`${notifications.id} desc`)
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(({ notification, actor }) => ({
    id: notification.id,
    type: notification.type as NotificationType,
    title: notification.title,
    body: notification.body,
    organizationId: notification.organizationId,
    actor: actor?.id ? actor : null,
    targetType: notification.targetType,
    targetId: notification.targetId,
    data: notification.data,
    read: notification.readAt !== null,
    readAt: notification.readAt,
    createdAt: notification.createdAt,
  }));
}
