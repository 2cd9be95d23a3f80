import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { videoListItemSchema, videoListQuery } from '../videos/schemas.ts';
import {
  channelSchema,
  createChannelBody,
  followSchema,
  organizationListQuery,
  updateChannelBody,
} from './schemas.ts';
import {
  createChannel,
  deleteChannel,
  followChannel,
  getChannel,
  listChannels,
  listChannelVideos,
  unfollowChannel,
  updateChannel,
} from './service.ts';

const tags = ['Channels'];

/**
 * Routes for channels and follows. Every one needs a signed-in caller; a channel of an
 * organization the caller is not a member of is a 404.
 */
export const channelRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.post(
    '/channels',
    {
      schema: {
        tags,
        summary: 'Create a channel in an organization (member or above)',
        security,
        body: createChannelBody,
        response: { 201: channelSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createChannel(context, callerId(request), request.body)),
  );

  app.get(
    '/channels',
    {
      schema: {
        tags,
        summary: "Channels of the caller's organizations (or of one), by name",
        security,
        querystring: organizationListQuery,
        response: { 200: paginated(channelSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listChannels(context.db, callerId(request), request.query),
  );

  app.get(
    '/channels/:id',
    {
      schema: {
        tags,
        summary: 'A channel, with its video and follower counts',
        security,
        params: idParams,
        response: { 200: channelSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getChannel(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/channels/:id',
    {
      schema: {
        tags,
        summary: 'Rename a channel or change its description (its creator or an admin)',
        security,
        params: idParams,
        body: updateChannelBody,
        response: { 200: channelSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateChannel(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/channels/:id',
    {
      schema: {
        tags,
        summary: 'Delete a channel (its creator or an admin); its videos stay, without a channel',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteChannel(context, callerId(request), request.params.id),
  );

  app.get(
    '/channels/:id/videos',
    {
      schema: {
        tags,
        summary: "A channel's videos, newest first",
        security,
        params: idParams,
        querystring: videoListQuery,
        response: { 200: paginated(videoListItemSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listChannelVideos(context.db, callerId(request), request.params.id, request.query),
  );

  app.post(
    '/channels/:id/follow',
    {
      schema: {
        tags,
        summary: 'Follow a channel (idempotent); followers hear of its new videos',
        security,
        params: idParams,
        response: { 201: followSchema, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await followChannel(context, callerId(request), request.params.id)),
  );

  app.delete(
    '/channels/:id/follow',
    {
      schema: {
        tags,
        summary: 'Stop following a channel (idempotent)',
        security,
        params: idParams,
        response: { 200: followSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => unfollowChannel(context, callerId(request), request.params.id),
  );
};
