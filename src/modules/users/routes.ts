import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { clearSessionCookies } from '../auth/cookies.ts';
import { createApiKey, deleteApiKey, listApiKeys } from './api-keys.ts';
import {
  apiKeyList,
  createApiKeyBody,
  createdApiKey,
  deletedSchema,
  exportSchema,
  profileSchema,
  sessionList,
  sessionsRevoked,
  updateProfileBody,
} from './schemas.ts';
import {
  deleteAccount,
  exportUserData,
  getProfile,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  updateProfile,
} from './service.ts';

const tags = ['Users'];

/** Routes for the signed-in user: /users/me, export, sessions, API keys. */
export const userRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.addHook('onRequest', authenticated);

  /** The caller's own session cookie names a session that no longer exists: drop it from the browser. */
  const forgetCookieIfRevoked = (reply: FastifyReply, revokedCurrent: boolean) => {
    if (revokedCurrent && reply.request.auth?.via === 'cookie') clearSessionCookies(reply, context.config);
  };

  app.get(
    '/users/me',
    {
      schema: {
        tags,
        summary: 'The signed-in user, with their organizations and role in each',
        security,
        response: { 200: profileSchema, ...errorResponses(401) },
      },
    },
    async (request) => getProfile(context.db, requireAuth(request).user.id),
  );

  app.patch(
    '/users/me',
    {
      schema: {
        tags,
        summary: 'Update the name, avatar or default organization of the signed-in user',
        security,
        body: updateProfileBody,
        response: { 200: profileSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => updateProfile(context, requireAuth(request).user.id, request.body),
  );

  app.delete(
    '/users/me',
    {
      schema: {
        tags,
        summary: 'Delete the account and the organizations where the user is the only member',
        description:
          'Refused (400 `SOLE_OWNER`) while the user is the only owner of an organization that has other members.',
        security,
        response: { 200: deletedSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const result = await deleteAccount(context, requireAuth(request).user.id);
      forgetCookieIfRevoked(reply, true);
      return result;
    },
  );

  app.get(
    '/users/me/export',
    {
      schema: {
        tags,
        summary: 'Download everything stored about the signed-in user, as a JSON file',
        security,
        response: { 200: exportSchema, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const { user, session } = requireAuth(request);
      reply
        .header('content-disposition', 'attachment; filename="knowledge-hub-export.json"')
        .header('cache-control', 'no-store');
      return exportUserData(context, user.id, session?.id ?? null);
    },
  );

  app.get(
    '/users/me/sessions',
    {
      schema: {
        tags,
        summary: 'Active sessions of the signed-in user, newest first',
        security,
        response: { 200: sessionList, ...errorResponses(401) },
      },
    },
    async (request) => {
      const { user, session } = requireAuth(request);
      return { data: await listSessions(context.db, context.clock, user.id, session?.id ?? null) };
    },
  );

  app.delete(
    '/users/me/sessions/:id',
    {
      schema: {
        tags,
        summary: 'Revoke one session (signs that device out)',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { user, session } = requireAuth(request);
      const result = await revokeSession(context, user.id, request.params.id);
      forgetCookieIfRevoked(reply, result.id === session?.id);
      return result;
    },
  );

  app.delete(
    '/users/me/sessions',
    {
      schema: {
        tags,
        summary: 'Revoke every session but the current one (all of them when called with an API key)',
        security,
        response: { 200: sessionsRevoked, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { user, session } = requireAuth(request);
      return revokeOtherSessions(context, user.id, session?.id ?? null);
    },
  );

  app.post(
    '/users/me/api-keys',
    {
      schema: {
        tags,
        summary: 'Create an API key (the key is shown only in this response)',
        security,
        body: createApiKeyBody,
        response: { 201: createdApiKey, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const key = await createApiKey(context, requireAuth(request).user.id, request.body);
      return reply.status(201).send(key);
    },
  );

  app.get(
    '/users/me/api-keys',
    {
      schema: {
        tags,
        summary: 'API keys of the signed-in user, newest first (never the keys themselves)',
        security,
        response: { 200: apiKeyList, ...errorResponses(401) },
      },
    },
    async (request) => ({ data: await listApiKeys(context.db, requireAuth(request).user.id) }),
  );

  app.delete(
    '/users/me/api-keys/:id',
    {
      schema: {
        tags,
        summary: 'Delete an API key: it stops working at once',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteApiKey(context, requireAuth(request).user.id, request.params.id),
  );
};
