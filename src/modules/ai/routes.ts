import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { createEngine } from './engines.ts';
import { askQuestion } from './qa.ts';
import { answerSchema, qaBody } from './schemas.ts';

const tags = ['AI'];

/** Question answering over the library; the gaps it reveals are in gaps-routes.ts. */
export const aiRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  const engine = createEngine(context);

  app.post(
    '/ai/qa',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Ask a question; the answer cites the second of the meeting each claim comes from',
        description:
          'Answers only from recordings you can read in the organization (never deleted ones). When nothing ' +
          'answers the question, `answered` is false, the answer says so, and the question becomes a knowledge ' +
          'gap. A question about one meeting as a whole ("What happened at the design review?", "What are the ' +
          'action items from the last weekly sync?") is answered from that meeting\'s extracted summary, decisions ' +
          'and action items, found by the words of its title ("Who attended…?" from who speaks in its transcript); ' +
          '"What are my action items?" lists the caller\'s own; "Who is Sam?" says where that speaker speaks, "What did Sam ' +
          'commit to?" lists their action items; ' +
          '"What did we decide last week?", "What are the open questions?" list the decisions, unanswered questions ' +
          'or action items of the scope, latest meeting first, over the days named; "What is the status of X?" ' +
          'lists those that name X; a question for one fact asked and answered in a meeting before ("How long does ' +
          'a reindex take?") is answered with that exchange. ' +
          'Costs 1 AI credit; over budget → 429 `AI_BUDGET_EXCEEDED` with `Retry-After`. With ' +
          '`AI_PROVIDER=openai`, a failing provider answers 502 `AI_PROVIDER_ERROR` and nothing is charged.',
        security,
        body: qaBody,
        response: { 201: answerSchema, ...errorResponses(400, 401, 403, 429, 502) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await askQuestion(context, engine, requireAuth(request).user, request.body)),
  );
};
