import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { createEngine } from '../ai/engines.ts';
import { dailySummary } from './daily.ts';
import { meetingPrep } from './meeting-prep.ts';
import {
  dailyQuery,
  dailySummarySchema,
  meetingPrepBody,
  meetingPrepSchema,
  topicSummarySchema,
} from './schemas.ts';
import { topicSummary } from './topic.ts';

const tags = ['AI'];
const overBudget = 'Over budget → 429 `AI_BUDGET_EXCEEDED` with `Retry-After`.';

/** Summaries built from the meetings' extracted knowledge: a day, a topic, the next meeting. */
export const summaryRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  const engine = createEngine(context);

  app.get(
    '/ai/summaries/daily',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "A day's meetings: what was decided, assigned and left open (any member)",
        description:
          'The live meetings of the UTC day whose date (recorded, else added) falls on `date`, with their ' +
          'extracted summaries, decisions, action items, unanswered questions, topics and stats. A future or ' +
          `empty day answers with empty lists. Costs 2 AI credits when the day has meetings, else nothing. ${overBudget}`,
        security,
        querystring: dailyQuery,
        response: { 200: dailySummarySchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => dailySummary(context, requireAuth(request).user, request.query),
  );

  app.post(
    '/ai/summaries/meeting-prep',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Prepare the next meeting from the previous ones: briefing, open items, suggested agenda',
        description:
          'Name at least one of `seriesId` (its latest 5 occurrences), `videoIds`, `topicIds` (their latest 5 ' +
          'meetings) or `query` (alone: the 5 meetings retrieval finds for it; with others: answered from their ' +
          'meetings). Ids that are not of the organization are a 400 naming the field. Action items are all ' +
          'listed as open: nothing tracks their completion yet. Costs 3 AI credits (nothing when no previous ' +
          `meeting is found). ${overBudget}`,
        security,
        body: meetingPrepBody,
        response: { 201: meetingPrepSchema, ...errorResponses(400, 401, 403, 429, 502) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await meetingPrep(context, engine, requireAuth(request).user, request.body)),
  );

  app.get(
    '/ai/summaries/topic/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "What the organization's meetings said about a topic, with citations",
        description:
          'A cited summary, key points, the decisions about the topic and the meetings that discuss it. A topic ' +
          'of an organization you do not belong to, or whose every meeting is deleted, is a 404 like an ' +
          `unknown one. Costs 2 AI credits. ${overBudget}`,
        security,
        params: idParams,
        response: { 200: topicSummarySchema, ...errorResponses(401, 404, 429, 502) },
      },
    },
    async (request) => topicSummary(context, engine, requireAuth(request).user, request.params.id),
  );
};
