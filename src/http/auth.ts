import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { safeEqual } from '../lib/crypto.ts';
import { CSRF_COOKIE, SESSION_COOKIE, setSessionCookies } from '../modules/auth/cookies.ts';
import {
  type AuthUser,
  authenticate,
  csrfTokenFor,
  type SameTripRead,
  type SameTripRow,
} from '../modules/auth/sessions.ts';
import { type AppError, errors } from './errors.ts';

export type Auth = {
  user: AuthUser;
  /** How the caller authenticated. */
  via: 'bearer' | 'cookie' | 'api_key';
  /** The session (null for API keys): its public id, its token as the caller sent it, and its expiry. */
  session: { id: string; token: string; expiresAt: Date } | null;
  apiKeyId: string | null;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, or null. Read it through requireAuth() on protected routes. */
    auth: Auth | null;
    /** Why credentials that were sent were refused (invalid, expired, CSRF); null when none were sent or they were fine. */
    authFailure: AppError | null;
    /**
     * What the route's `readAlongsideCredential` found, read with the caller's credential; undefined
     * when it was not read (no such config, no valid credential, or the route's input did not allow it).
     */
    readAlongside: SameTripRow | undefined;
  }
  interface FastifyContextConfig {
    /** A row the route will need, read in the credential's statement (modules/auth/sessions.ts SameTripRead). */
    readAlongsideCredential?: (request: FastifyRequest) => SameTripRead | null;
  }
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Resolves the caller's credentials on every request: `Authorization: Bearer <session token or
 * API key>`, else the session cookie. Failures are recorded, not thrown, so that public routes
 * still answer; protected routes call requireAuth(), which throws them.
 */
export function registerAuthentication(app: FastifyInstance, context: AppContext) {
  app.decorateRequest('auth', null);
  app.decorateRequest('authFailure', null);
  app.decorateRequest('readAlongside', undefined);

  app.addHook('onRequest', async (request, reply) => {
    const bearer = bearerToken(request);
    const token = bearer ?? request.cookies[SESSION_COOKIE];
    if (token === undefined) return;
    if (token === '') {
      request.authFailure = errors.unauthorized('Invalid session', 'INVALID_SESSION');
      return;
    }
    const alongside = request.routeOptions.config.readAlongsideCredential?.(request) ?? null;
    const result = await authenticate(context.db, context.clock, token, alongside);
    if (result.kind === 'invalid') {
      request.authFailure = errors.unauthorized('Invalid session', 'INVALID_SESSION');
      return;
    }
    if (result.kind === 'expired') {
      request.authFailure = errors.unauthorized('Session expired', 'SESSION_EXPIRED');
      return;
    }
    const via = bearer ? (result.kind === 'api_key' ? 'api_key' : 'bearer') : 'cookie';
    // Cookies ride along on cross-site requests; a state change by cookie must prove it read our CSRF cookie.
    if (
      via === 'cookie' &&
      UNSAFE_METHODS.has(request.method) &&
      !csrfMatches(request, context.config.secret, token)
    ) {
      request.authFailure = errors.forbidden('CSRF token mismatch', 'CSRF_MISMATCH');
      return;
    }
    request.auth = {
      user: result.user,
      via,
      session:
        result.kind === 'session' ? { id: result.sessionId, token, expiresAt: result.expiresAt } : null,
      apiKeyId: result.kind === 'api_key' ? result.apiKeyId : null,
    };
    if (alongside) request.readAlongside = result.alongside;
    if (result.kind === 'session' && result.refreshed && via === 'cookie')
      setSessionCookies(reply, context.config, token);
  });
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // A malformed Authorization header is a credential that cannot be valid.
  return match?.[1] ?? '';
}

function csrfMatches(request: FastifyRequest, secret: string, sessionToken: string): boolean {
  const header = request.headers['x-csrf-token'];
  const cookie = request.cookies[CSRF_COOKIE];
  if (typeof header !== 'string' || !cookie || !safeEqual(header, cookie)) return false;
  return safeEqual(header, csrfTokenFor(secret, sessionToken));
}

/** The authenticated caller of a protected route; 401 (or 403 for CSRF) otherwise. */
export function requireAuth(request: FastifyRequest): Auth {
  if (request.authFailure) throw request.authFailure;
  if (!request.auth) throw errors.unauthorized('Authentication required');
  return request.auth;
}

/** The id of the authenticated caller of a protected route. */
export const callerId = (request: FastifyRequest) => requireAuth(request).user.id;

/** The caller of a route open to anonymous readers: null without credentials, 401 for bad ones. */
export function optionalCallerId(request: FastifyRequest): string | null {
  if (request.authFailure) throw request.authFailure;
  return request.auth?.user.id ?? null;
}

/** OpenAPI security of protected routes, and of routes that work with or without credentials. */
export const security = [{ bearerAuth: [] }];
export const optionalSecurity: Array<Record<string, string[]>> = [{}, { bearerAuth: [] }];

/** Route-level guard for plugins whose every route is protected: `app.addHook('onRequest', authenticated)`. */
export async function authenticated(request: FastifyRequest) {
  requireAuth(request);
}

/**
 * Whether the credential a long-lived request (an event stream) came with still authenticates
 * the same user: a signed-out session, a revoked key or an expired one ends the stream.
 */
export async function credentialStillValid(request: FastifyRequest, context: AppContext): Promise<boolean> {
  const token = bearerToken(request) ?? request.cookies[SESSION_COOKIE];
  if (!token || !request.auth) return false;
  const result = await authenticate(context.db, context.clock, token);
  return (result.kind === 'session' || result.kind === 'api_key') && result.user.id === request.auth.user.id;
}
