import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, optionalSecurity, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { hashToken } from '../../lib/crypto.ts';
import {
  createdShareLinkSchema,
  createShareLinkBody,
  revokedShareLinkSchema,
  shareAccessSchema,
  sharedPageSchema,
  shareHeaders,
  shareLinkListSchema,
  shareTokenParams,
  verifyShareBody,
} from './schemas.ts';
import {
  createShareLink,
  listShareLinks,
  openSharedVideo,
  revokeShareLink,
  type ShareCaller,
  verifySharePassword,
} from './service.ts';

const tags = ['Share links'];
/** The public pages need no credentials, but a link limited to email domains needs a signed-in caller. */

const shareCaller = (request: FastifyRequest<{ Headers: { 'x-share-token'?: string } }>): ShareCaller => ({
  accessToken: request.headers['x-share-token'],
  signedInEmail: () => requireAuth(request).user.email,
});

/** Password guessing: 10 tries per 15 minutes per client IP and link. */
const perLinkAttemptLimit = {
  max: 10,
  timeWindow: 15 * 60_000,
  keyGenerator: (request: FastifyRequest) => {
    const token = (request.params as { token?: unknown }).token;
    return `share:${request.ip}|${hashToken(typeof token === 'string' ? token : '')}`;
  },
};

const DOMAIN_RULE =
  'A link limited to email domains needs a signed-in caller (bearer or cookie): 401 without one, ' +
  '403 EMAIL_DOMAIN_NOT_ALLOWED when their email domain is not listed.';

/** Routes for share links (managed by the video's author or an admin) and the public share pages. */
export const shareLinkRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.post(
    '/videos/:id/share-links',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: 'Create a link that opens a video to people outside the organization (author or admin)',
        description: 'The token is shown once. Optional password, expiry, view limit and email domains.',
        security,
        params: idParams,
        body: createShareLinkBody,
        response: { 201: createdShareLinkSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createShareLink(context, callerId(request), request.params.id, request.body)),
  );

  app.get(
    '/videos/:id/share-links',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "A video's share links, revoked ones included, newest first (author or admin)",
        security,
        params: idParams,
        response: { 200: shareLinkListSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => listShareLinks(context.db, callerId(request), request.params.id),
  );

  app.delete(
    '/share-links/:id',
    {
      onRequest: authenticated,
      schema: {
        tags,
        summary: "Revoke a share link for good (the video's author or an admin; idempotent)",
        security,
        params: idParams,
        response: { 200: revokedShareLinkSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => revokeShareLink(context, callerId(request), request.params.id),
  );

  app.get(
    '/share/:token',
    {
      schema: {
        tags,
        summary: 'Open a shared video (no authentication); counts a view',
        description:
          'Revoked, expired or exhausted links, deleted videos and unknown tokens answer 404. A link with a ' +
          'password answers 401 PASSWORD_REQUIRED unless `x-share-token` carries a valid access token. ' +
          DOMAIN_RULE,
        security: optionalSecurity,
        params: shareTokenParams,
        headers: shareHeaders,
        response: { 200: sharedPageSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => openSharedVideo(context, request.params.token, shareCaller(request)),
  );

  app.post(
    '/share/:token/verify',
    {
      config: { rateLimit: perLinkAttemptLimit },
      schema: {
        tags,
        summary: "Exchange a share link's password for an access token valid one hour",
        description:
          'Wrong password: 400 INVALID_PASSWORD; a link without a password: 400 NO_PASSWORD. 10 tries per ' +
          `15 minutes per client IP and link, then 429. ${DOMAIN_RULE}`,
        security: optionalSecurity,
        params: shareTokenParams,
        body: verifyShareBody,
        response: { 201: shareAccessSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await verifySharePassword(
            context,
            request.params.token,
            request.body.password,
            shareCaller(request),
          ),
        ),
  );
};
