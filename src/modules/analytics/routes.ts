import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import {
  analyticsQuery,
  speakerDetailSchema,
  speakerListQuery,
  speakerListSchema,
  speakerParams,
} from './schemas.ts';
import { listSpeakerStats, speakerAnalytics } from './service.ts';

const tags = ['Analytics'];

/** Speaker analytics (docs/analytics.md): sums of the per-meeting metrics stored with each transcript. */
export const analyticsRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/analytics/speakers',
    {
      schema: {
        tags,
        summary:
          "Every speaker of the organization's meetings with talk time and share, pace, turns, monologues, questions, interruptions and patience (any member)",
        security,
        querystring: speakerListQuery,
        response: { 200: speakerListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listSpeakerStats(context.db, requireAuth(request).user, request.query),
  );

  app.get(
    '/analytics/speakers/:speakerId',
    {
      schema: {
        tags,
        summary:
          "One speaker's metrics, per meeting (talk ratio), per week, their top topics and frequent co-speakers (any member of their organization)",
        security,
        params: speakerParams,
        querystring: analyticsQuery,
        response: { 200: speakerDetailSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      speakerAnalytics(context.db, requireAuth(request).user, request.params.speakerId, request.query),
  );
};
