import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { csrfTokenFor, SESSION_TTL_SECONDS } from './sessions.ts';

export const SESSION_COOKIE = 'svc-auth.session_token';
export const CSRF_COOKIE = 'svc-auth.csrf_token';

/** Cookies are Secure when the service is served over HTTPS (by its public URL or this request). */
export const secureCookies = (config: Config, request: FastifyRequest) =>
  config.appUrl.startsWith('https://') || request.protocol === 'https';

/** Sets the session cookie (HttpOnly) and its CSRF cookie (readable by scripts, to echo in `x-csrf-token`). */
export function setSessionCookies(reply: FastifyReply, config: Config, token: string) {
  const base = {
    path: '/',
    sameSite: 'lax' as const,
    secure: secureCookies(config, reply.request),
    maxAge: SESSION_TTL_SECONDS,
  };
  reply.setCookie(SESSION_COOKIE, token, { ...base, httpOnly: true });
  reply.setCookie(CSRF_COOKIE, csrfTokenFor(config.secret, token), { ...base, httpOnly: false });
}

export function clearSessionCookies(reply: FastifyReply, config: Config) {
  const base = { path: '/', sameSite: 'lax' as const, secure: secureCookies(config, reply.request) };
  reply.clearCookie(SESSION_COOKIE, { ...base, httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, base);
}
