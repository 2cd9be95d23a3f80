import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import {
  overviewSchema,
  periodQuery,
  recommendationsQuery,
  recommendationsSchema,
  trendsSchema,
} from './schemas.ts';
import { insightRecommendations, insightsOverview, insightTrends } from './service.ts';

const tags = ['AI'];

const common =
  'Only live (not deleted) videos of the organization count. Default organization: yours; one you do not ' +
  'belong to is a 403. Costs 1 AI credit; over budget → 429 `AI_BUDGET_EXCEEDED` with `Retry-After`.';

/** Insights over an organization's meetings: trends, personal recommendations, and an overview of both. */
export const insightRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/ai/insights',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Insights overview: top topic trends, your top recommendations, and highlights of the period',
        description: common,
        security,
        querystring: periodQuery,
        response: { 200: overviewSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => insightsOverview(context, requireAuth(request).user, request.query),
  );

  app.get(
    '/ai/insights/trends',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Topic trends: meetings per topic in the period against the period before, and totals',
        description:
          'A meeting is a video, dated when it was recorded (else when it was uploaded). ' +
          'Totals: videos, questions asked through QA and chat, and decisions made in meetings. ' +
          common,
        security,
        querystring: periodQuery,
        response: { 200: trendsSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => insightTrends(context, requireAuth(request).user, request.query),
  );

  app.get(
    '/ai/insights/recommendations',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Your recommendations: videos to watch, playlists to resume, unanswered questions you could answer',
        description:
          'Videos you have not watched, did not make and did not speak in, from channels you follow or on ' +
          'topics you watched, spoke about or asked about; playlists you started and have not finished; ' +
          'questions raised in meetings that nobody answered, on topics you spoke about or watched. ' +
          'Best first. ' +
          common,
        security,
        querystring: recommendationsQuery,
        response: { 200: recommendationsSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => insightRecommendations(context, requireAuth(request).user, request.query),
  );
};
