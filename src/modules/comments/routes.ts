import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { toggleReaction } from './reactions.ts';
import {
  commentSchema,
  commentThreadSchema,
  createCommentBody,
  listCommentsQuery,
  REACTION_EMOJI_MAX,
  reactionBody,
  reactionToggleSchema,
  updateCommentBody,
} from './schemas.ts';
import { createComment, deleteComment, listVideoComments, updateComment } from './service.ts';

const tags = ['Comments'];

/**
 * Routes for comments: team discussion of a video, for members of its organization only (any
 * role, viewers included), even when the video is public. Everyone else gets 404.
 */
export const commentRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.post(
    '/videos/:id/comments',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Comment on a video or reply to one of its comments (any member). Mentioned members, the author ' +
          'replied to and the video’s author are notified, each once',
        security,
        params: idParams,
        body: createCommentBody,
        response: { 201: commentSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createComment(context, callerId(request), request.params.id, request.body)),
  );

  app.get(
    '/videos/:id/comments',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'The comment threads of a video, each with all its replies oldest first (members only)',
        security,
        params: idParams,
        querystring: listCommentsQuery,
        response: { 200: paginated(commentThreadSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listVideoComments(context.db, callerId(request), request.params.id, request.query),
  );

  app.patch(
    '/comments/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Edit a comment (its author only); newly mentioned members are notified',
        security,
        params: idParams,
        body: updateCommentBody,
        response: { 200: commentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateComment(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/comments/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Delete a comment (its author or an admin). One with replies stays as a `[deleted]` tombstone ' +
          'until its last reply is deleted',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteComment(context, callerId(request), request.params.id),
  );

  app.post(
    '/comments/:id/reactions',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: `Toggle the caller's reaction with an emoji (any member; at most ${REACTION_EMOJI_MAX} different emoji per comment)`,
        security,
        params: idParams,
        body: reactionBody,
        response: { 200: reactionToggleSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => toggleReaction(context, callerId(request), request.params.id, request.body.emoji),
  );
};
