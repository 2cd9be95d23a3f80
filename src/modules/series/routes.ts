import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { videoListItemSchema, videoListQuery } from '../videos/schemas.ts';
import { createSeriesBody, organizationListQuery, seriesSchema, updateSeriesBody } from './schemas.ts';
import {
  createSeries,
  deleteSeries,
  getSeries,
  listSeries,
  listSeriesVideos,
  updateSeries,
} from './service.ts';

const tags = ['Series'];

/**
 * Routes for series of recurring meetings. Every one needs a signed-in caller; a series of an
 * organization the caller is not a member of is a 404.
 */
export const seriesRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.post(
    '/series',
    {
      schema: {
        tags,
        summary: 'Create a series of recurring meetings in an organization (member or above)',
        security,
        body: createSeriesBody,
        response: { 201: seriesSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createSeries(context, callerId(request), request.body)),
  );

  app.get(
    '/series',
    {
      schema: {
        tags,
        summary: "Series of the caller's organizations (or of one), by name",
        security,
        querystring: organizationListQuery,
        response: { 200: paginated(seriesSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listSeries(context.db, callerId(request), request.query),
  );

  app.get(
    '/series/:id',
    {
      schema: {
        tags,
        summary: 'A series, with its occurrence count and latest recording',
        security,
        params: idParams,
        response: { 200: seriesSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getSeries(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/series/:id',
    {
      schema: {
        tags,
        summary: 'Change the name, description or cadence of a series (its creator or an admin)',
        security,
        params: idParams,
        body: updateSeriesBody,
        response: { 200: seriesSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateSeries(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/series/:id',
    {
      schema: {
        tags,
        summary: 'Delete a series (its creator or an admin); its videos stay, without a series',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteSeries(context, callerId(request), request.params.id),
  );

  app.get(
    '/series/:id/videos',
    {
      schema: {
        tags,
        summary: 'The occurrences of a series, by recording date (undated ones last)',
        security,
        params: idParams,
        querystring: videoListQuery,
        response: { 200: paginated(videoListItemSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listSeriesVideos(context.db, callerId(request), request.params.id, request.query),
  );
};
