import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import {
  addVideoToCollection,
  removeVideoFromCollection,
  reorderCollectionVideos,
} from './collection-videos.ts';
import { getPlaylistProgress, updatePlaylistProgress } from './progress.ts';
import {
  addVideoBody,
  collectionSchema,
  collectionVideoParams,
  collectionWithVideosSchema,
  createCollectionBody,
  deletedCollectionSchema,
  listCollectionsQuery,
  progressBody,
  progressSchema,
  reorderVideosBody,
  updateCollectionBody,
} from './schemas.ts';
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  updateCollection,
} from './service.ts';

const tags = ['Collections'];

/**
 * Routes for collections (folders and playlists), the videos in them and playlist progress. Every
 * one needs a signed-in member of the collection's organization; another organization's
 * collection is a 404, except for progress, where the spec answers outsiders 403.
 */
export const collectionRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.post(
    '/collections',
    {
      schema: {
        tags,
        summary: 'Create a folder or playlist (members and above of the organization)',
        security,
        body: createCollectionBody,
        response: { 201: collectionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createCollection(context, callerId(request), request.body)),
  );

  app.get(
    '/collections',
    {
      schema: {
        tags,
        summary: "Collections of the caller's organizations (or the one named), newest first",
        security,
        querystring: listCollectionsQuery,
        response: { 200: paginated(collectionSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listCollections(context.db, callerId(request), request.query),
  );

  app.get(
    '/collections/:id',
    {
      schema: {
        tags,
        summary: 'A collection with its videos in playlist order',
        security,
        params: idParams,
        response: { 200: collectionWithVideosSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getCollection(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/collections/:id',
    {
      schema: {
        tags,
        summary: 'Change a collection (its creator or an admin); null clears description and thumbnailUrl',
        security,
        params: idParams,
        body: updateCollectionBody,
        response: { 200: collectionSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateCollection(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/collections/:id',
    {
      schema: {
        tags,
        summary: 'Delete a collection (its creator or an admin); its videos stay, out of any collection',
        security,
        params: idParams,
        response: { 200: deletedCollectionSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteCollection(context, callerId(request), request.params.id),
  );

  app.post(
    '/collections/:id/videos',
    {
      schema: {
        tags,
        summary:
          'Put a video of the same organization into the collection (members and above); moves it from any other collection',
        description:
          'Appends by default; `position` (0 to the number of videos) inserts it there. A video of another organization the caller belongs to is a 400 VIDEO_OTHER_ORGANIZATION; one they cannot see is a 404.',
        security,
        params: idParams,
        body: addVideoBody,
        response: { 201: collectionWithVideosSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await addVideoToCollection(context, callerId(request), request.params.id, request.body)),
  );

  app.put(
    '/collections/:id/videos',
    {
      schema: {
        tags,
        summary: 'Reorder the videos of a collection (members and above); `videoIds` lists each exactly once',
        security,
        params: idParams,
        body: reorderVideosBody,
        response: { 200: collectionWithVideosSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      reorderCollectionVideos(context, callerId(request), request.params.id, request.body.videoIds),
  );

  app.delete(
    '/collections/:id/videos/:videoId',
    {
      schema: {
        tags,
        summary: 'Take a video out of the collection (members and above); the video stays',
        security,
        params: collectionVideoParams,
        response: { 200: collectionWithVideosSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      removeVideoFromCollection(context, callerId(request), request.params.id, request.params.videoId),
  );

  app.get(
    '/collections/:id/progress',
    {
      schema: {
        tags,
        summary: "The caller's progress through a playlist (a folder is a 400)",
        security,
        params: idParams,
        response: { 200: progressSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getPlaylistProgress(context.db, callerId(request), request.params.id),
  );

  app.post(
    '/collections/:id/progress',
    {
      schema: {
        tags,
        summary: 'Complete or un-mark a video of a playlist, or record where the caller is in it',
        description:
          '`completed: true` completes `videoId` (default: the current video, the first not completed) and so advances; `completed: false` un-marks `videoId`. Unless the call only un-marks, the video becomes `lastVideoId` at `position` (or null). Any member may keep their own progress.',
        security,
        params: idParams,
        body: progressBody,
        response: { 201: progressSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await updatePlaylistProgress(context, callerId(request), request.params.id, request.body)),
  );
};
