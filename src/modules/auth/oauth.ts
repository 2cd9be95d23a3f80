import {
  CodeChallengeMethod,
  generateCodeVerifier,
  generateState,
  OAuth2Client,
  OAuth2RequestError,
} from 'arctic';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { OAuthProviderConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { oauthAccounts, users } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import { emailField } from './schemas.ts';
import { type ClientInfo, insertUser } from './service.ts';
import { createSession, revokeAllSessions } from './sessions.ts';

export const OAUTH_PROVIDERS = ['github', 'google'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

/** How long a started sign-in may take at the provider before its state is refused. */
export const OAUTH_STATE_TTL_SECONDS = 10 * 60;

export const oauthErrors = {
  denied: () => new AppError(400, 'OAUTH_DENIED', 'Sign-in was cancelled at the provider'),
  failed: () => new AppError(400, 'OAUTH_FAILED', 'The provider did not complete the sign-in'),
  stateMismatch: () =>
    new AppError(400, 'OAUTH_STATE_MISMATCH', 'Invalid or expired sign-in state; start the sign-in again'),
  codeRejected: () =>
    new AppError(
      400,
      'OAUTH_CODE_REJECTED',
      'The provider rejected the authorization code; start the sign-in again',
    ),
  emailUnverified: () =>
    new AppError(
      400,
      'OAUTH_EMAIL_UNVERIFIED',
      'The provider has not verified an email address for this account',
    ),
  providerUnavailable: () =>
    new AppError(
      502,
      'OAUTH_PROVIDER_ERROR',
      'The sign-in provider could not be reached or answered unexpectedly',
    ),
};

type Profile = {
  providerAccountId: string;
  /** Normalised as sign-up normalises it; null when the provider gave none that is valid. */
  email: string | null;
  emailVerified: boolean;
  name: string;
  avatarUrl: string | null;
};

type ProviderSpec = {
  scopes: string[];
  pkce: boolean;
  fetchProfile(config: OAuthProviderConfig, accessToken: string, context: AppContext): Promise<Profile>;
};

const githubUser = z.object({
  id: z.number().int(),
  login: z.string().min(1),
  name: z.string().nullish(),
  avatar_url: z.string().nullish(),
});
const githubEmails = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }));
const googleUser = z.object({
  sub: z.string().min(1),
  email: z.string().optional(),
  // Some Google endpoints send the flag as a string.
  email_verified: z
    .union([z.boolean(), z.enum(['true', 'false']).transform((flag) => flag === 'true')])
    .optional(),
  name: z.string().optional(),
  picture: z.string().optional(),
});

const GITHUB_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' };

const providers: Record<OAuthProvider, ProviderSpec> = {
  github: {
    scopes: ['read:user', 'user:email'],
    pkce: false,
    async fetchProfile(config, accessToken, context) {
      const [user, emails] = await Promise.all([
        fetchJson(context, `${config.userApiUrl}/user`, accessToken, githubUser, GITHUB_HEADERS),
        fetchJson(context, `${config.userApiUrl}/user/emails`, accessToken, githubEmails, GITHUB_HEADERS),
      ]);
      const primary = emails.find((email) => email.primary && email.verified);
      return {
        providerAccountId: String(user.id),
        email: normaliseEmail(primary?.email),
        emailVerified: primary !== undefined,
        name: user.name?.trim() || user.login,
        avatarUrl: user.avatar_url ?? null,
      };
    },
  },
  google: {
    scopes: ['openid', 'email', 'profile'],
    pkce: true,
    async fetchProfile(config, accessToken, context) {
      const user = await fetchJson(context, config.userApiUrl, accessToken, googleUser, {
        accept: 'application/json',
      });
      const email = normaliseEmail(user.email);
      return {
        providerAccountId: user.sub,
        email,
        emailVerified: user.email_verified === true,
        name: user.name?.trim() || email?.split('@')[0] || 'Google user',
        avatarUrl: user.picture ?? null,
      };
    },
  },
};

/** What the state cookie carries between the start of a sign-in and its callback. */
export type OAuthState = {
  provider: OAuthProvider;
  state: string;
  codeVerifier: string | null;
  issuedAt: number;
};

const stateCookieValue = z.object({
  provider: z.enum(OAUTH_PROVIDERS),
  state: z.string(),
  codeVerifier: z.string().nullable(),
  issuedAt: z.number(),
});

export const encodeOAuthState = (state: OAuthState) => JSON.stringify(state);

/** The state cookie's content, or null when it is not one of ours. */
export function decodeOAuthState(value: string): OAuthState | null {
  try {
    const parsed = stateCookieValue.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A provider without a client id and secret does not exist for the API: 404. */
function providerConfig(context: AppContext, provider: OAuthProvider): OAuthProviderConfig {
  const config = context.config.oauth[provider];
  if (!config) throw errors.notFound();
  return config;
}

const clientFor = (context: AppContext, provider: OAuthProvider, config: OAuthProviderConfig) =>
  new OAuth2Client(
    config.clientId,
    config.clientSecret,
    `${context.config.appUrl}/auth/${provider}/callback`,
  );

/** Where to send the browser to sign in, and the state to keep in its cookie until the callback. */
export function startOAuth(context: AppContext, provider: OAuthProvider): { url: URL; state: OAuthState } {
  const config = providerConfig(context, provider);
  const spec = providers[provider];
  const client = clientFor(context, provider, config);
  const state = generateState();
  const codeVerifier = spec.pkce ? generateCodeVerifier() : null;
  const url = codeVerifier
    ? client.createAuthorizationURLWithPKCE(
        config.authorizeUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        spec.scopes,
      )
    : client.createAuthorizationURL(config.authorizeUrl, state, spec.scopes);
  return { url, state: { provider, state, codeVerifier, issuedAt: context.clock.now().getTime() } };
}

export type OAuthCallback = {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
};

/**
 * Finishes a sign-in: checks the state against the cookie's, exchanges the code, reads the
 * profile, finds or creates the user and opens a session (returned with its token).
 */
export async function completeOAuth(
  context: AppContext,
  provider: OAuthProvider,
  callback: OAuthCallback,
  saved: OAuthState | null,
  client: ClientInfo,
) {
  const config = providerConfig(context, provider);
  if (callback.error === 'access_denied') throw oauthErrors.denied();
  if (callback.error) throw oauthErrors.failed();
  const age = context.clock.now().getTime() - (saved?.issuedAt ?? 0);
  if (
    !saved ||
    saved.provider !== provider ||
    !callback.state ||
    !safeEqual(callback.state, saved.state) ||
    age > OAUTH_STATE_TTL_SECONDS * 1000
  ) {
    throw oauthErrors.stateMismatch();
  }
  if (!callback.code) throw oauthErrors.failed();

  const accessToken = await exchangeCode(context, provider, config, callback.code, saved.codeVerifier);
  const profile = await providers[provider].fetchProfile(config, accessToken, context);
  return context.db.transaction(async (tx) => {
    const userId = await findOrCreateUser(tx, context, provider, profile);
    return createSession(tx, context.clock, { userId, ...client });
  });
}

async function exchangeCode(
  context: AppContext,
  provider: OAuthProvider,
  config: OAuthProviderConfig,
  code: string,
  codeVerifier: string | null,
): Promise<string> {
  try {
    const tokens = await clientFor(context, provider, config).validateAuthorizationCode(
      config.tokenUrl,
      code,
      codeVerifier,
    );
    return tokens.accessToken();
  } catch (error) {
    // An OAuth error answer (invalid_grant: reused, expired or forged code) is about this sign-in;
    // anything else (unreachable, 5xx, malformed answer) is the provider's failure.
    if (error instanceof OAuth2RequestError) {
      context.logger.info({ provider, oauthError: error.code }, 'oauth code exchange refused');
      throw oauthErrors.codeRejected();
    }
    context.logger.warn({ provider, err: error }, 'oauth code exchange failed');
    throw oauthErrors.providerUnavailable();
  }
}

/**
 * The linked user; else the user with the same email, when the provider verified it; else a new
 * user (no password, email verified, personal organization). An unverified email never links.
 */
async function findOrCreateUser(
  tx: Tx,
  context: AppContext,
  provider: OAuthProvider,
  profile: Profile,
): Promise<string> {
  const [linked] = await tx
    .select({ userId: oauthAccounts.userId })
    .from(oauthAccounts)
    .where(
      and(
        eq(oauthAccounts.provider, provider),
        eq(oauthAccounts.providerAccountId, profile.providerAccountId),
      ),
    );
  if (linked) return linked.userId;

  const { email } = profile;
  if (!email || !profile.emailVerified) throw oauthErrors.emailUnverified();
  const now = context.clock.now();
  const [existing] = await tx
    .select({ id: users.id, emailVerifiedAt: users.emailVerifiedAt })
    .from(users)
    .where(eq(users.email, email));
  let userId: string;
  if (existing) {
    userId = existing.id;
    if (!existing.emailVerifiedAt) {
      // Nobody has proven they own this address until now. Whoever registered it may not be the
      // owner (an account created in advance to hijack this sign-in): the owner takes it over,
      // and the unproven password and sessions stop working.
      await tx
        .update(users)
        .set({ emailVerifiedAt: now, passwordHash: null, updatedAt: now })
        .where(eq(users.id, userId));
      await revokeAllSessions(tx, userId);
    }
  } else {
    const user = await insertUser(tx, {
      email,
      name: profile.name.slice(0, 100),
      avatarUrl: profile.avatarUrl,
      emailVerifiedAt: now,
    });
    userId = user.id;
  }
  const linkedNow = await tx
    .insert(oauthAccounts)
    .values({ provider, providerAccountId: profile.providerAccountId, userId, email })
    .onConflictDoNothing()
    .returning({ userId: oauthAccounts.userId });
  // A concurrent sign-in that linked the same account already recorded it.
  if (linkedNow.length > 0) {
    await recordActivity(tx, {
      organizationId: null,
      actorId: userId,
      action: 'oauth.linked',
      targetType: 'user',
      targetId: userId,
      metadata: { provider },
    });
  }
  return userId;
}

function normaliseEmail(raw: string | undefined): string | null {
  const parsed = emailField.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

const PROFILE_TIMEOUT_MS = 10_000;

async function fetchJson<T extends z.ZodType>(
  context: AppContext,
  url: string,
  accessToken: string,
  schema: T,
  headers: Record<string, string>,
): Promise<z.infer<T>> {
  try {
    const response = await fetch(url, {
      headers: { ...headers, authorization: `Bearer ${accessToken}`, 'user-agent': 'knowledge-hub' },
      signal: AbortSignal.timeout(PROFILE_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`profile request answered ${response.status}`);
    }
    return schema.parse(await response.json());
  } catch (error) {
    context.logger.warn({ err: error, url }, 'oauth profile request failed');
    throw oauthErrors.providerUnavailable();
  }
}
