import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { emailIsOptional, NOTIFICATION_TYPES, type NotificationType, notificationTypes } from './types.ts';

export const notificationTypeSchema = z.enum(notificationTypes);

export const notificationSchema = z
  .object({
    id: uuid(),
    type: notificationTypeSchema,
    title: z.string(),
    body: z.string(),
    organizationId: uuid().nullable(),
    actor: z
      .object({ id: uuid(), name: z.string(), avatarUrl: z.string().nullable() })
      .nullable()
      .meta({ description: 'Who caused it; null when the account is gone.' }),
    targetType: z.string().nullable().meta({ example: 'comment' }),
    targetId: uuid().nullable(),
    data: z
      .record(z.string(), z.unknown())
      .meta({ description: 'Ids to open the target with, e.g. `{videoId, commentId, timestamp}`.' }),
    read: z.boolean(),
    readAt: timestamp().nullable(),
    createdAt: timestamp(),
  })
  .meta({ id: 'Notification' });

export type NotificationView = z.infer<typeof notificationSchema>;

/** `'true'` or `'false'` only: coercion would read any non-empty string, `'false'` included, as true. */
const booleanQuery = z.enum(['true', 'false']).transform((flag) => flag === 'true');

export const listNotificationsQuery = paginationQuery.extend({
  unread: booleanQuery.optional().meta({ description: 'true: only unread; false: only read; absent: all.' }),
  type: notificationTypeSchema.optional(),
});

export type ListNotificationsQuery = z.output<typeof listNotificationsQuery>;

export const notificationListSchema = paginated(notificationSchema).extend({
  unreadCount: z
    .number()
    .int()
    .meta({ description: "All of the caller's unread notifications, whatever the filters." }),
});

export const updateNotificationBody = z.object({
  read: z.boolean().meta({ description: 'false marks it unread again.' }),
});

export const readAllSchema = z.object({
  updated: z.number().int().meta({ description: 'How many unread notifications were marked read.' }),
  unreadCount: z.literal(0),
});

const channelsSchema = z.object({ inApp: z.boolean(), email: z.boolean() });

const byType = <T extends z.ZodType>(schemaOf: (type: NotificationType) => T) =>
  Object.fromEntries(
    notificationTypes.map((type) => [
      type,
      schemaOf(type).meta({ description: NOTIFICATION_TYPES[type].description }),
    ]),
  ) as Record<NotificationType, T>;

export const notificationPreferencesSchema = z
  .object({
    preferences: z.object(
      byType((type) =>
        emailIsOptional(type)
          ? channelsSchema
          : channelsSchema.extend({
              email: z.boolean().meta({ description: 'Always true: this mail is always sent.' }),
            }),
      ),
    ),
  })
  .meta({ id: 'NotificationPreferences' });

export type NotificationPreferences = z.output<typeof notificationPreferencesSchema>['preferences'];

/** Channels left out keep their setting; a mail that is always sent cannot be turned off. */
const channelsChange = (type: NotificationType) =>
  z.strictObject({
    inApp: z.boolean().optional(),
    email: (emailIsOptional(type)
      ? z.boolean()
      : z.literal(true, { error: `${type} mails are always sent: email can only be true` })
    ).optional(),
  });

export const updatePreferencesBody = z.strictObject({
  preferences: z.strictObject(byType((type) => channelsChange(type).optional())),
});

export type PreferencesChange = z.output<typeof updatePreferencesBody>['preferences'];
