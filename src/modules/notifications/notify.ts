import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { notificationPreferences, notifications, users } from '../../db/schema/index.ts';
import { queueMail } from '../mail/service.ts';
import { NOTIFICATION_TYPES, type NotificationType } from './types.ts';

/** The PostgreSQL channel every instance LISTENs on; payloads are `{id, userId}` (see hub.ts). */
export const NOTIFICATION_CHANNEL = 'knowledge_hub_notifications';

export type NotificationInput = {
  type: NotificationType;
  /** Who is told. The actor is never told about their own action; duplicates are dropped. */
  recipientIds: string[];
  organizationId: string | null;
  actorId: string | null;
  title: string;
  body: string;
  targetType: string | null;
  targetId: string | null;
  /** Ids a client needs to open the target (videoId, commentId, timestamp…). */
  data?: Record<string, unknown>;
};

/**
 * Tells people about something that happened, inside the transaction that made it happen: the
 * in-app notifications, their wake-up for live streams (pg_notify is delivered on commit) and
 * the mails (outbox + durable job) all commit or roll back with the change. Each recipient's
 * preferences for the type decide which of in-app and email they get.
 */
/** What telling people needs: the time, the queue that sends their mails, the app's address for links. */
export type NotifyContext = {
  clock: AppContext['clock'];
  jobs: Pick<AppContext['jobs'], 'send'>;
  config: Pick<AppContext['config'], 'appUrl'>;
};

/** The page of the web app a notification opens: its meeting (at the moment, when it has one). */
export function notificationLink(
  appUrl: string,
  input: Pick<NotificationInput, 'targetType' | 'targetId' | 'data'>,
) {
  const videoId =
    typeof input.data?.videoId === 'string'
      ? input.data.videoId
      : input.targetType === 'video'
        ? input.targetId
        : null;
  if (!videoId) return `${appUrl}/notifications`;
  const timestamp = input.data?.timestamp;
  return typeof timestamp === 'number'
    ? `${appUrl}/videos/${videoId}?t=${Math.floor(timestamp)}`
    : `${appUrl}/videos/${videoId}`;
}

export async function notify(tx: Tx, context: NotifyContext, input: NotificationInput): Promise<void> {
  const recipientIds = [...new Set(input.recipientIds)].filter((id) => id !== input.actorId);
  if (recipientIds.length === 0) return;
  const defaults = NOTIFICATION_TYPES[input.type];
  const recipients = await tx
    .select({
      id: users.id,
      email: users.email,
      inApp: notificationPreferences.inApp,
      byEmail: notificationPreferences.email,
    })
    .from(users)
    .leftJoin(
      notificationPreferences,
      and(eq(notificationPreferences.userId, users.id), eq(notificationPreferences.type, input.type)),
    )
    .where(inArray(users.id, recipientIds));

  const inApp = recipients.filter((recipient) => recipient.inApp ?? defaults.inApp);
  if (inApp.length > 0) {
    const createdAt = context.clock.now();
    const inserted = await tx
      .insert(notifications)
      .values(
        inApp.map((recipient) => ({
          userId: recipient.id,
          organizationId: input.organizationId,
          type: input.type,
          actorId: input.actorId,
          title: input.title,
          body: input.body,
          targetType: input.targetType,
          targetId: input.targetId,
          data: input.data ?? {},
          createdAt,
        })),
      )
      .returning({ id: notifications.id, userId: notifications.userId });
    const payloads = JSON.stringify(inserted.map((row) => JSON.stringify(row)));
    await tx.execute(
      sql`select pg_notify(${NOTIFICATION_CHANNEL}, payload) from json_array_elements_text(${payloads}::json) as payload`,
    );
  }

  if (defaults.email === 'always') return;
  for (const recipient of recipients) {
    if (!(recipient.byEmail ?? defaults.email)) continue;
    await queueMail(tx, context.jobs, {
      to: recipient.email,
      subject: input.title,
      text: [
        input.body,
        '',
        `Open it: ${notificationLink(context.config.appUrl, input)}`,
        '',
        '—',
        `Knowledge Hub. Choose which notifications reach you by email: ${context.config.appUrl}/notifications`,
      ].join('\n'),
    });
  }
}
