import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { paginated } from '../../http/pagination.ts';
import { listTopicsQuery, topicSchema } from './schemas.ts';
import { listTopics } from './service.ts';

/** The subjects an organization's meetings discuss, as knowledge extraction found them. */
export const topicRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/topics',
    {
      onRequest: authenticated,
      schema: {
        tags: ['Topics'],
        summary: "An organization's topics, with the meetings that discuss them (any member)",
        description:
          'Topics are merged across meetings by their stemmed words. Counts and dates cover live meetings only; ' +
          'a topic whose every meeting is deleted is not listed. A read: it costs no AI credits. Default: your ' +
          'default organization; one you do not belong to is a 403.',
        security,
        querystring: listTopicsQuery,
        response: { 200: paginated(topicSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listTopics(context.db, requireAuth(request).user, request.query),
  );
};
