import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { requireAuth } from '../../http/auth.ts';
import { errorResponses, errors, routeNotFound } from '../../http/errors.ts';
import { perEmailAttemptLimit } from '../../http/rate-limit.ts';
import { clearSessionCookies, setSessionCookies } from './cookies.ts';
import { authData, messageData, signInBody, signUpBody } from './schemas.ts';
import { type ClientInfo, signIn, signUp } from './service.ts';
import { revokeSession } from './sessions.ts';

const tags = ['Authentication'];

export const clientInfo = (request: FastifyRequest): ClientInfo => ({
  userAgent: request.headers['user-agent'],
  ip: request.ip,
});

/** A session just opened: set its cookies and answer in the spec's envelope. */
function sendSession(
  reply: FastifyReply,
  context: AppContext,
  status: 200 | 201,
  result: Awaited<ReturnType<typeof signIn>>,
) {
  setSessionCookies(reply, context.config, result.session.token);
  return reply.status(status).send({
    success: true as const,
    data: {
      user: result.user,
      session: { sessionId: result.session.token, expiresAt: result.session.expiresAt },
    },
  });
}

/** Browsers send Origin on these POSTs: one that is not ours is a cross-site form or script. */
function assertAllowedOrigin(request: FastifyRequest, context: AppContext) {
  const origin = request.headers.origin;
  if (!origin) return;
  const allowed = new Set([new URL(context.config.appUrl).origin, ...context.config.corsOrigins]);
  if (!allowed.has('*') && !allowed.has(origin))
    throw errors.forbidden('Origin not allowed', 'ORIGIN_NOT_ALLOWED');
}

export const authRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.post(
    '/auth/sign-up',
    {
      config: { rateLimit: perEmailAttemptLimit },
      schema: {
        tags,
        summary:
          'Create an account and sign in; it gets a personal organization unless it signs up with an invitationToken',
        body: signUpBody,
        response: { 201: authData, ...errorResponses(400, 403, 429) },
      },
    },
    async (request, reply) => {
      assertAllowedOrigin(request, context);
      return sendSession(reply, context, 201, await signUp(context, request.body, clientInfo(request)));
    },
  );

  app.post(
    '/auth/sign-in',
    {
      config: { rateLimit: perEmailAttemptLimit },
      schema: {
        tags,
        summary: 'Sign in with email and password',
        body: signInBody,
        response: { 200: authData, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      assertAllowedOrigin(request, context);
      return sendSession(reply, context, 200, await signIn(context, request.body, clientInfo(request)));
    },
  );

  app.post(
    '/auth/sign-out',
    {
      schema: {
        tags,
        summary: 'Sign out: revoke the current session and clear its cookies (idempotent)',
        security: [{ bearerAuth: [] }],
        response: { 200: messageData, ...errorResponses(403) },
      },
    },
    async (request, reply) => {
      // A cookie-authenticated sign-out without its CSRF token is refused; anything else signs out.
      if (request.authFailure?.code === 'CSRF_MISMATCH') throw request.authFailure;
      const session = request.auth?.session;
      if (session) await revokeSession(context.db, session.id);
      clearSessionCookies(reply, context.config);
      return { success: true as const, data: { message: 'Signed out' } };
    },
  );

  app.get(
    '/auth/session',
    {
      schema: {
        tags,
        summary: 'The current session and its user',
        security: [{ bearerAuth: [] }],
        response: { 200: authData, ...errorResponses(401) },
      },
    },
    async (request) => {
      const { user, session } = requireAuth(request);
      // An API key is not a session: there is none to describe.
      if (!session)
        throw errors.unauthorized('This endpoint needs a session, not an API key', 'SESSION_REQUIRED');
      return {
        success: true as const,
        data: { user, session: { sessionId: session.token, expiresAt: session.expiresAt } },
      };
    },
  );
};

/** Unknown `/auth/...` routes answer 404 in the auth error shape, for GET and POST alike. */
export const authCatchAllRoutes: FastifyPluginAsyncZod = async (app) => {
  const notFound = async (request: FastifyRequest) => {
    throw routeNotFound(request);
  };
  app.route({
    method: ['GET', 'POST'],
    url: '/auth/*',
    schema: { hide: true },
    // Answer before the body is read: an unknown route is a 404 whatever it was sent.
    onRequest: notFound,
    handler: notFound,
  });
};
