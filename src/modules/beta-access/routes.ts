import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, requireAuth } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import {
  betaAccessBody,
  betaAccessList,
  betaAccessListQuery,
  betaAccessReceipt,
  betaAccessRequest,
} from './schemas.ts';
import { approveBetaAccessRequest, listBetaAccessRequests, requestBetaAccess } from './service.ts';

const tags = ['Beta-access'];

/** The public sign-up form is a spam target: 20 requests per hour per client IP. */
const perIpRequestLimit = {
  max: 20,
  timeWindow: 60 * 60_000,
  keyGenerator: (request: FastifyRequest) => request.ip,
};

/** Routes for beta access requests: anyone asks, platform administrators (ADMIN_EMAILS) list and approve. */
export const betaAccessRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.post(
    '/beta-access',
    {
      config: { rateLimit: perIpRequestLimit },
      schema: {
        tags,
        summary: 'Request access to the beta',
        description:
          'No authentication. Asking again with the same email returns the existing request unchanged.',
        body: betaAccessBody,
        response: { 201: betaAccessReceipt, ...errorResponses(400, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await requestBetaAccess(context, request.body)),
  );

  app.get(
    '/beta-access',
    {
      // Credentials are checked before the query is validated: an anonymous caller learns nothing.
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'List beta access requests (platform administrators)',
        security: [{ bearerAuth: [] }],
        querystring: betaAccessListQuery,
        response: { 200: betaAccessList, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => listBetaAccessRequests(context, requireAuth(request).user, request.query),
  );

  app.post(
    '/beta-access/:id/approve',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary:
          'Approve a beta access request and mail the requester a sign-up link (platform administrators)',
        description:
          'Answers 200, not 201: it changes an existing request and creates nothing. Idempotent: approving ' +
          'an approved request returns it unchanged and sends no second mail.',
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: { 200: betaAccessRequest, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => approveBetaAccessRequest(context, requireAuth(request).user, request.params.id),
  );
};
