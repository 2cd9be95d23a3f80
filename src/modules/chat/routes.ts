import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { createEngine } from '../ai/engines.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { sendTurnEvents, turnEventsDescription, turnResponse, wantsEvents } from './events.ts';
import {
  aiChatBody,
  chatMessageSchema,
  conversationDetailSchema,
  conversationSchema,
  createConversationBody,
  listConversationsQuery,
  sendMessageBody,
  updateConversationBody,
} from './schemas.ts';
import {
  createEmptyConversation,
  deleteConversation,
  getConversation,
  listConversations,
  listMessages,
  renameConversation,
} from './service.ts';
import { answerTurn, type PendingTurn, prepareTurn } from './turns.ts';

const tags = ['Chat'];

const ownerOnly =
  'Only its owner sees a conversation, while they belong to its organization; anyone else gets 404.';
const costs =
  'Costs 1 AI credit; over budget → 429 `AI_BUDGET_EXCEEDED` with `Retry-After`. Answers only from recordings ' +
  "you can read in the conversation's organization; earlier questions of the conversation help find what a " +
  'follow-up is about.';

/** Conversations with the assistant: follow-up questions answered from the library, with citations. */
export const chatRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  const engine = createEngine(context);

  app.get(
    '/chat/conversations',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Your conversations, most recently active first',
        description: 'Only those in organizations you still belong to.',
        security,
        querystring: listConversationsQuery,
        response: { 200: paginated(conversationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listConversations(context.db, requireAuth(request).user, request.query),
  );

  app.post(
    '/chat/conversations',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Start a conversation in an organization, optionally with a first message answered at once',
        description:
          'With `message`, the answer comes in the same request and the response holds both messages. ' +
          `The title defaults to the start of the first message, else "New conversation". ${costs}`,
        security,
        body: createConversationBody,
        response: { 201: conversationDetailSchema, ...errorResponses(400, 401, 403, 429, 502) },
      },
    },
    async (request, reply) => {
      const { user } = requireAuth(request);
      const { organizationId, title, message } = request.body;
      if (!message) return reply.status(201).send(await createEmptyConversation(context, user, request.body));
      const pending = await prepareTurn(context, user, {
        title,
        content: message,
        scope: { organizationId },
      });
      const turn = await answerTurn(context, engine, pending);
      return reply.status(201).send(await getConversation(context.db, user.id, turn.conversationId));
    },
  );

  app.get(
    '/chat/conversations/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'A conversation with all its messages, oldest first',
        description: ownerOnly,
        security,
        params: idParams,
        response: { 200: conversationDetailSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getConversation(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/chat/conversations/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Rename a conversation',
        description: ownerOnly,
        security,
        params: idParams,
        body: updateConversationBody,
        response: { 200: conversationSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => renameConversation(context, callerId(request), request.params.id, request.body.title),
  );

  app.delete(
    '/chat/conversations/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Delete a conversation and its messages',
        description: `${ownerOnly} The questions stay in the organization's AI history and knowledge gaps.`,
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => deleteConversation(context, callerId(request), request.params.id),
  );

  app.get(
    '/chat/conversations/:id/messages',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'The messages of a conversation, oldest first',
        description: ownerOnly,
        security,
        params: idParams,
        querystring: paginationQuery,
        response: { 200: paginated(chatMessageSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listMessages(context.db, callerId(request), request.params.id, request.query),
  );

  /** A turn prepared (every refusal is a JSON error), then answered as JSON or as events. */
  const answer = (request: FastifyRequest, reply: FastifyReply, pending: PendingTurn) =>
    wantsEvents(request)
      ? sendTurnEvents(request, reply, (onToken) => answerTurn(context, engine, pending, onToken))
      : answerTurn(context, engine, pending).then((turn) => reply.status(201).send(turn));

  app.post(
    '/chat/conversations/:id/messages',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Send a message and get the answer, with citations',
        description: `${ownerOnly} ${costs}\n\n${turnEventsDescription}`,
        security,
        params: idParams,
        body: sendMessageBody,
        response: { 201: turnResponse, ...errorResponses(400, 401, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const pending = await prepareTurn(context, requireAuth(request).user, {
        conversationId: request.params.id,
        content: request.body.content,
        scope: {},
      });
      return answer(request, reply, pending);
    },
  );

  app.post(
    '/ai/chat',
    {
      onRequest: authenticated,
      schema: {
        tags: ['AI'],
        summary: 'Chat with the library: start a conversation, or continue one of yours',
        description:
          'Without `conversationId` a conversation is created, titled after the message; with one, it continues ' +
          `(404 when it is not yours). The scope fields narrow what this answer reads. ${costs}\n\n${turnEventsDescription}`,
        security,
        body: aiChatBody,
        response: { 201: turnResponse, ...errorResponses(400, 401, 403, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const { message, conversationId, ...scope } = request.body;
      const pending = await prepareTurn(context, requireAuth(request).user, {
        conversationId,
        content: message,
        scope,
      });
      return answer(request, reply, pending);
    },
  );
};
