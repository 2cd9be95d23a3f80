import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponseSchema } from '../../http/errors.ts';
import { activityStats, listActivity } from './queries.ts';
import { activityPage, activityQuery, activityStatsQuery, activityStatsSchema } from './schemas.ts';

/** Routes for the activity log and its statistics. */
export const activityRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/activity',
    {
      schema: {
        tags: ['Activity'],
        summary: 'List activity events',
        description:
          'Events of the organizations you belong to and of your own account, newest first. Naming an organization you do not belong to is a 403.',
        security,
        querystring: activityQuery,
        response: {
          200: activityPage,
          400: errorResponseSchema,
          401: errorResponseSchema,
          403: errorResponseSchema,
        },
      },
    },
    async (request) => listActivity(context.db, requireAuth(request).user.id, request.query),
  );

  app.get(
    '/activity/stats',
    {
      schema: {
        tags: ['Activity'],
        summary: 'Activity statistics',
        description:
          'Counts per action and per day (UTC), active users and top contributors over the last `days` days, today included.',
        security,
        querystring: activityStatsQuery,
        response: {
          200: activityStatsSchema,
          400: errorResponseSchema,
          401: errorResponseSchema,
          403: errorResponseSchema,
        },
      },
    },
    async (request) => activityStats(context, requireAuth(request).user.id, request.query),
  );
};
