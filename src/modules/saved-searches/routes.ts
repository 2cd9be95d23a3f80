import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { organizationListQuery } from '../channels/schemas.ts';
import { deletedSchema } from '../organizations/schemas.ts';
import { clearHistory, deleteHistoryEntry, listHistory } from './history.ts';
import {
  createSavedSearch,
  deleteSavedSearch,
  getSavedSearch,
  listSavedSearches,
  updateSavedSearch,
} from './saved.ts';
import {
  clearedHistorySchema,
  createSavedSearchBody,
  historyPage,
  savedSearchSchema,
  updateSavedSearchBody,
} from './schemas.ts';

const tags = ['Search'];

/**
 * Routes for a person's search history and saved searches. Both are personal: another user's
 * entry or saved search is a 404, even within one organization.
 */
export const savedSearchRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  app.get(
    '/search/history',
    {
      schema: {
        tags,
        summary: 'Your recent searches, newest first (the latest 100 are kept)',
        security,
        querystring: paginationQuery,
        response: { 200: historyPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => listHistory(context.db, callerId(request), request.query),
  );

  app.delete(
    '/search/history',
    {
      schema: {
        tags,
        summary: 'Clear your search history',
        security,
        response: { 200: clearedHistorySchema, ...errorResponses(401) },
      },
    },
    async (request) => clearHistory(context, callerId(request)),
  );

  app.delete(
    '/search/history/:id',
    {
      schema: {
        tags,
        summary: 'Remove one search from your history',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => deleteHistoryEntry(context, callerId(request), request.params.id),
  );

  app.post(
    '/search/saved',
    {
      schema: {
        tags,
        summary: 'Save a search in an organization you belong to (any role); names are unique per person',
        security,
        body: createSavedSearchBody,
        response: { 201: savedSearchSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createSavedSearch(context, callerId(request), request.body)),
  );

  app.get(
    '/search/saved',
    {
      schema: {
        tags,
        summary: 'Your saved searches in your organizations (or one of them), newest first',
        security,
        querystring: organizationListQuery,
        response: { 200: paginated(savedSearchSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listSavedSearches(context.db, callerId(request), request.query),
  );

  app.get(
    '/search/saved/:id',
    {
      schema: {
        tags,
        summary: 'One of your saved searches',
        security,
        params: idParams,
        response: { 200: savedSearchSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getSavedSearch(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/search/saved/:id',
    {
      schema: {
        tags,
        summary: 'Rename or change one of your saved searches (filters, when given, replace the old ones)',
        security,
        params: idParams,
        body: updateSavedSearchBody,
        response: { 200: savedSearchSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => updateSavedSearch(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/search/saved/:id',
    {
      schema: {
        tags,
        summary: 'Delete one of your saved searches',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => deleteSavedSearch(context, callerId(request), request.params.id),
  );
};
