import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, optionalCallerId, optionalSecurity, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { clipSchema, createClipBody, updateClipBody } from './schemas.ts';
import { createClip, deleteClip, getClip, listVideoClips, updateClip } from './service.ts';

const tags = ['Clips'];
/** Clips of public videos answer without credentials. */

/** Routes for clips (highlights of a video). */
export const clipRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/clips/:id',
    {
      schema: {
        tags,
        summary:
          'A clip: to anyone when its video is public, else to members of its organization ' +
          '(credentials that are not valid count as none: the spec lists only 200 and 404)',
        security: optionalSecurity,
        params: idParams,
        response: { 200: clipSchema, ...errorResponses(404) },
      },
    },
    async (request) => getClip(context.db, request.auth?.user.id ?? null, request.params.id),
  );

  app.get(
    '/videos/:id/clips',
    {
      schema: {
        tags,
        summary: 'The clips of a video, by start time (anyone for a public video, else its members)',
        security: optionalSecurity,
        params: idParams,
        querystring: paginationQuery,
        response: { 200: paginated(clipSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      listVideoClips(context.db, optionalCallerId(request), request.params.id, request.query),
  );

  app.post(
    '/videos/:id/clips',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          "Clip a time range of a video (member or above): 0 ≤ startTime < endTime ≤ the video's duration when known",
        security,
        params: idParams,
        body: createClipBody,
        response: { 201: clipSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createClip(context, callerId(request), request.params.id, request.body)),
  );

  app.patch(
    '/clips/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Change a clip (its creator or an admin; anyone else gets 404, the spec lists no 403). ' +
          'null leaves title, startTime and endTime unchanged and clears description',
        security,
        params: idParams,
        body: updateClipBody,
        response: { 200: clipSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => updateClip(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/clips/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Delete a clip (its creator or an admin; anyone else gets 404, the spec lists no 403)',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => deleteClip(context, callerId(request), request.params.id),
  );
};
