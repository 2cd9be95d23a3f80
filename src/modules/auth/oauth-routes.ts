import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorResponseSchema } from '../../http/errors.ts';
import { secureCookies, setSessionCookies } from './cookies.ts';
import {
  completeOAuth,
  decodeOAuthState,
  encodeOAuthState,
  OAUTH_PROVIDERS,
  OAUTH_STATE_TTL_SECONDS,
  type OAuthState,
  startOAuth,
} from './oauth.ts';
import { clientInfo } from './routes.ts';

const tags = ['Authentication'];
export const OAUTH_STATE_COOKIE = 'svc-auth.oauth_state';
const LABELS = { github: 'GitHub', google: 'Google' } as const;

const redirect = (description: string) => z.null().meta({ description });
const queryValue = z.string().max(2048, 'must be at most 2048 characters').optional();
const callbackQuery = z.object({
  code: queryValue,
  state: queryValue,
  error: queryValue.meta({
    description: 'Set by the provider when the sign-in did not happen (`access_denied`).',
  }),
});

/** The signed state cookie, or null when it is missing, tampered with or not ours. */
function savedState(request: FastifyRequest): OAuthState | null {
  const raw = request.cookies[OAUTH_STATE_COOKIE];
  if (!raw) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value !== null ? decodeOAuthState(unsigned.value) : null;
}

/** Routes for GitHub and Google sign-in (GET /auth/github, /auth/google and their callbacks). */
export const oauthRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  const { config } = context;

  for (const provider of OAUTH_PROVIDERS) {
    const label = LABELS[provider];
    // Sent back only to this provider's routes, where the callback reads it.
    const cookieOptions = (request: FastifyRequest) => ({
      path: `/auth/${provider}`,
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: secureCookies(config, request),
    });

    app.get(
      `/auth/${provider}`,
      {
        schema: {
          tags,
          summary: `Sign in with ${label}`,
          description:
            `Redirects the browser to ${label}'s authorization page, with a state (and a PKCE challenge ` +
            'for Google) kept in a signed, HttpOnly cookie for 10 minutes. 404 when the provider is not configured.',
          response: {
            302: redirect(`To ${label}'s authorization page; a signed state cookie is set for the callback.`),
            404: errorResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const { url, state } = startOAuth(context, provider);
        reply.setCookie(OAUTH_STATE_COOKIE, encodeOAuthState(state), {
          ...cookieOptions(request),
          signed: true,
          maxAge: OAUTH_STATE_TTL_SECONDS,
        });
        return reply.redirect(url.toString(), 302);
      },
    );

    app.get(
      `/auth/${provider}/callback`,
      {
        schema: {
          tags,
          summary: `${label} sign-in callback`,
          description:
            `Where ${label} sends the browser back. Checks the state against the cookie, exchanges the code ` +
            'and reads the profile; signs in the linked user, else links the identity to the user with the ' +
            'same verified email, else creates the account. Sets the session cookies and redirects to the app. ' +
            '400 `OAUTH_DENIED` (consent refused), `OAUTH_STATE_MISMATCH` (missing, forged or expired state), ' +
            '`OAUTH_CODE_REJECTED` (the provider refused the code), `OAUTH_EMAIL_UNVERIFIED`, `OAUTH_FAILED`; ' +
            `502 \`OAUTH_PROVIDER_ERROR\` when ${label} cannot be reached or answers unexpectedly.`,
          querystring: callbackQuery,
          response: {
            302: redirect('To the app, with the session cookies set.'),
            400: errorResponseSchema,
            404: errorResponseSchema,
            502: errorResponseSchema,
          },
        },
      },
      async (request, reply) => {
        const saved = savedState(request);
        // A state is good for one callback, whatever its outcome.
        reply.clearCookie(OAUTH_STATE_COOKIE, cookieOptions(request));
        const session = await completeOAuth(context, provider, request.query, saved, clientInfo(request));
        setSessionCookies(reply, config, session.token);
        return reply.redirect(config.appUrl, 302);
      },
    );
  }
};
