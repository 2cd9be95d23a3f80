import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { getPreferences, updatePreferences } from './preferences.ts';
import {
  listNotificationsQuery,
  notificationListSchema,
  notificationPreferencesSchema,
  notificationSchema,
  readAllSchema,
  updateNotificationBody,
  updatePreferencesBody,
} from './schemas.ts';
import { deleteNotification, listNotifications, markAllRead, markNotification } from './service.ts';

const tags = ['Notifications'];

/** The caller's in-app notifications and their notification preferences (the live stream is in stream-routes.ts). */
export const notificationRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  app,
  { context },
) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/notifications',
    {
      schema: {
        tags,
        summary: "The caller's notifications, newest first, with their total of unread ones",
        security,
        querystring: listNotificationsQuery,
        response: { 200: notificationListSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => listNotifications(context.db, callerId(request), request.query),
  );

  app.post(
    '/notifications/read-all',
    {
      schema: {
        tags,
        summary: 'Mark every unread notification of the caller read (no body needed)',
        security,
        response: { 200: readAllSchema, ...errorResponses(401) },
      },
    },
    async (request) => markAllRead(context, callerId(request)),
  );

  app.patch(
    '/notifications/:id',
    {
      schema: {
        tags,
        summary:
          'Mark a notification read (keeping the first readAt) or unread; ' +
          "another person's notification answers 404",
        security,
        params: idParams,
        body: updateNotificationBody,
        response: { 200: notificationSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => markNotification(context, callerId(request), request.params.id, request.body.read),
  );

  app.delete(
    '/notifications/:id',
    {
      schema: {
        tags,
        summary: "Delete a notification of the caller; another person's answers 404",
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => deleteNotification(context, callerId(request), request.params.id),
  );

  app.get(
    '/users/me/notification-preferences',
    {
      schema: {
        tags,
        summary:
          'Which notifications reach the caller in the app and by email, per type ' +
          '(the stored choice or the default; invitation mails are always sent)',
        security,
        response: { 200: notificationPreferencesSchema, ...errorResponses(401) },
      },
    },
    async (request) => getPreferences(context.db, callerId(request)),
  );

  app.put(
    '/users/me/notification-preferences',
    {
      schema: {
        tags,
        summary:
          'Change notification preferences: types and channels left out keep their setting; ' +
          'invitation.email cannot be turned off. Answers the full preferences',
        security,
        body: updatePreferencesBody,
        response: { 200: notificationPreferencesSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => updatePreferences(context, callerId(request), request.body.preferences),
  );
};
