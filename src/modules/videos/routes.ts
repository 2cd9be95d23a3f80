import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, optionalCallerId, optionalSecurity, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { videoAlongsideCredential } from './access.ts';
import { listDeletedVideos, listVideos } from './queries.ts';
import {
  createVideoBody,
  deleteVideoQuery,
  listDeletedVideosQuery,
  listVideosQuery,
  permanentlyDeletedSchema,
  recordViewBody,
  updateVideoBody,
  videoListItemSchema,
  videoSchema,
  viewResultSchema,
} from './schemas.ts';
import {
  createVideo,
  getVideo,
  permanentlyDeleteVideo,
  restoreVideo,
  softDeleteVideo,
  updateVideo,
} from './service.ts';
import { recordView, type Viewer } from './views.ts';

const tags = ['Videos'];
/** Public videos answer without credentials; credentials that are sent must still be valid. */

const viewerOf = (request: FastifyRequest): Viewer => {
  const userId = optionalCallerId(request);
  return userId
    ? { userId }
    : { userId: null, ip: request.ip, userAgent: request.headers['user-agent'] ?? '' };
};

/** Transcripts travel in the video's body. */
const TRANSCRIPT_BODY_LIMIT = 25 * 1024 * 1024;

/** Routes for videos: create, list, read, update, soft delete, restore, views. */
export const videoRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/videos/:id',
    {
      schema: {
        tags,
        summary: "A video: members read their organization's, anyone reads a public one",
        security: optionalSecurity,
        params: idParams,
        response: { 200: videoSchema, ...errorResponses(401, 404) },
      },
      config: { readAlongsideCredential: videoAlongsideCredential },
    },
    async (request) =>
      getVideo(context.db, optionalCallerId(request), request.params.id, request.readAlongside),
  );

  app.post(
    '/videos/:id/views',
    {
      schema: {
        tags,
        summary: "Count a view (one per viewer per 30 minutes) and keep the viewer's watch position",
        security: optionalSecurity,
        params: idParams,
        body: recordViewBody,
        response: { 201: viewResultSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(
        await recordView(context, {
          videoId: request.params.id,
          viewer: viewerOf(request),
          position: request.body.position,
        }),
      ),
  );

  await app.register(protectedVideoRoutes, { context });
};

const protectedVideoRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.post(
    '/videos',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Create a video in an organization (members and above)',
        security,
        body: createVideoBody,
        response: { 201: videoSchema, ...errorResponses(400, 401, 403, 413) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createVideo(context, callerId(request), request.body)),
  );

  app.get(
    '/videos',
    {
      schema: {
        tags,
        summary: "Videos of the caller's organizations, filtered and sorted",
        security,
        querystring: listVideosQuery,
        response: { 200: paginated(videoListItemSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listVideos(context.db, callerId(request), request.query),
  );

  app.get(
    '/videos/deleted',
    {
      schema: {
        tags,
        summary: 'Deleted videos the caller may restore (their own; all of it for admins), until purged',
        security,
        querystring: listDeletedVideosQuery,
        response: { 200: paginated(videoListItemSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listDeletedVideos(context.db, callerId(request), request.query),
  );

  app.patch(
    '/videos/:id',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Change a video (its author or an admin); null clears a field',
        security,
        params: idParams,
        body: updateVideoBody,
        response: { 200: videoSchema, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => updateVideo(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/videos/:id',
    {
      schema: {
        tags,
        summary:
          "Delete a video (its author or an admin): kept for the organization's retention days, or removed for good with permanent=true",
        security,
        params: idParams,
        querystring: deleteVideoQuery,
        response: {
          200: videoSchema.or(permanentlyDeletedSchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      request.query.permanent
        ? permanentlyDeleteVideo(context, callerId(request), request.params.id)
        : softDeleteVideo(context, callerId(request), request.params.id),
  );

  app.post(
    '/videos/:id/restore',
    {
      schema: {
        tags,
        summary: 'Bring a deleted video back before it is purged (its author or an admin)',
        security,
        params: idParams,
        response: { 201: videoSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await restoreVideo(context, callerId(request), request.params.id)),
  );
};
