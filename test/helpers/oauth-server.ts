import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';

export type GithubIdentity = {
  id: number;
  login: string;
  name: string | null;
  avatarUrl: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
};

export type GoogleIdentity = {
  sub: string;
  email: string;
  emailVerified: boolean;
  name: string;
  picture: string | null;
};

/** A GitHub account whose primary email is verified; override what a test needs. */
export const githubIdentity = (overrides: Partial<GithubIdentity> = {}): GithubIdentity => ({
  id: 1001,
  login: 'octocat',
  name: 'Mona Octocat',
  avatarUrl: 'https://avatars.example.com/u/1001',
  emails: [
    { email: 'mona-old@example.com', primary: false, verified: true },
    { email: 'Mona@Example.com', primary: true, verified: true },
  ],
  ...overrides,
});

/** A Google account with a verified email. */
export const googleIdentity = (overrides: Partial<GoogleIdentity> = {}): GoogleIdentity => ({
  sub: '110248495921238986420',
  email: 'grace@example.com',
  emailVerified: true,
  name: 'Grace Hopper',
  picture: 'https://lh3.example.com/grace.png',
  ...overrides,
});

type Provider = 'github' | 'google';
type Identity = { github: GithubIdentity; google: GoogleIdentity };
type IssuedCode = {
  provider: Provider;
  redirectUri: string;
  codeChallenge: string | null;
  identity: GithubIdentity | GoogleIdentity;
};

export const OAUTH_CLIENTS = {
  github: { id: 'github-test-client', secret: 'github-test-secret' },
  google: { id: 'google-test-client', secret: 'google-test-secret' },
} as const;

/**
 * A real OAuth 2 authorization server on loopback, speaking GitHub's and Google's dialects:
 * authorize (redirects back with a code, or `error=access_denied`), token (checks the client's
 * credentials, the code, its redirect URI and the PKCE verifier), GitHub's /user and /user/emails,
 * and Google's userinfo. `env` points the app at it.
 */
export async function startOAuthServer() {
  const identities: { github: GithubIdentity | undefined; google: GoogleIdentity | undefined } = {
    github: undefined,
    google: undefined,
  };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, IssuedCode['identity']>();
  /** Every token request's form fields, for assertions about what the app sent. */
  const tokenRequests: Array<{ provider: Provider; fields: Record<string, string> }> = [];
  let denyNext = false;
  let nextTokenFailure: { status: number; body: unknown } | undefined;
  let nextProfileFailure: number | undefined;

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: Error) => send(response, 500, { error: error.message }));
  });

  async function handle(request: http.IncomingMessage, response: http.ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const [, provider, ...rest] = url.pathname.split('/');
    if (provider !== 'github' && provider !== 'google') return send(response, 404, { error: 'not_found' });
    const endpoint = `${request.method} /${rest.join('/')}`;
    if (endpoint === 'GET /authorize') return authorize(provider, url, response);
    if (endpoint === 'POST /token') return token(provider, request, response);
    if (nextProfileFailure) {
      const status = nextProfileFailure;
      nextProfileFailure = undefined;
      return send(response, status, { message: 'profile unavailable' });
    }
    const identity = accessTokens.get(bearer(request) ?? '');
    if (!identity) return send(response, 401, { message: 'Bad credentials' });
    if (provider === 'github' && endpoint === 'GET /api/user') {
      const { id, login, name, avatarUrl } = identity as GithubIdentity;
      return send(response, 200, { id, login, name, avatar_url: avatarUrl, email: null });
    }
    if (provider === 'github' && endpoint === 'GET /api/user/emails') {
      const { emails } = identity as GithubIdentity;
      return send(
        response,
        200,
        emails.map((email) => ({ ...email, visibility: email.primary ? 'private' : null })),
      );
    }
    if (provider === 'google' && endpoint === 'GET /userinfo') {
      const { sub, email, emailVerified, name, picture } = identity as GoogleIdentity;
      return send(response, 200, { sub, email, email_verified: emailVerified, name, picture });
    }
    return send(response, 404, { error: 'not_found' });
  }

  function authorize(provider: Provider, url: URL, response: http.ServerResponse) {
    const param = (name: string) => url.searchParams.get(name);
    const redirectUri = param('redirect_uri');
    const state = param('state');
    const problems = [
      param('client_id') !== OAUTH_CLIENTS[provider].id && 'unknown client_id',
      param('response_type') !== 'code' && 'response_type must be code',
      !redirectUri && 'redirect_uri missing',
      !state && 'state missing',
      provider === 'google' && param('code_challenge_method') !== 'S256' && 'PKCE S256 required',
      provider === 'google' && !param('code_challenge') && 'code_challenge missing',
    ].filter(Boolean);
    if (problems.length > 0 || !redirectUri || !state) return send(response, 400, { error: problems });

    const back = new URL(redirectUri);
    back.searchParams.set('state', state);
    if (denyNext) {
      denyNext = false;
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user denied the request');
    } else {
      const identity = identities[provider];
      if (!identity) return send(response, 500, { error: `no ${provider} identity set` });
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        provider,
        redirectUri,
        codeChallenge: param('code_challenge'),
        identity: structuredClone(identity),
      });
      back.searchParams.set('code', code);
    }
    response.writeHead(302, { location: back.toString() }).end();
  }

  async function token(provider: Provider, request: http.IncomingMessage, response: http.ServerResponse) {
    const fields = Object.fromEntries(new URLSearchParams(await readBody(request)));
    tokenRequests.push({ provider, fields });
    if (nextTokenFailure) {
      const failure = nextTokenFailure;
      nextTokenFailure = undefined;
      return send(response, failure.status, failure.body);
    }
    const [clientId, clientSecret] = basicCredentials(request) ?? [fields.client_id, fields.client_secret];
    const client = OAUTH_CLIENTS[provider];
    if (clientId !== client.id || clientSecret !== client.secret) {
      return send(response, 401, { error: 'invalid_client' });
    }
    if (fields.grant_type !== 'authorization_code')
      return send(response, 400, { error: 'unsupported_grant_type' });
    const issued = codes.get(fields.code ?? '');
    // A code is good for one exchange, by the client it was issued for.
    codes.delete(fields.code ?? '');
    const verifierMatches =
      issued?.codeChallenge === null ||
      (fields.code_verifier !== undefined &&
        createHash('sha256').update(fields.code_verifier).digest('base64url') === issued?.codeChallenge);
    if (
      !issued ||
      issued.provider !== provider ||
      issued.redirectUri !== fields.redirect_uri ||
      !verifierMatches
    ) {
      return send(response, 400, { error: 'invalid_grant', error_description: 'Bad authorization code' });
    }
    const accessToken = randomBytes(20).toString('hex');
    accessTokens.set(accessToken, issued.identity);
    return send(response, 200, { access_token: accessToken, token_type: 'bearer', scope: 'granted' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    /** The app's environment for both providers, pointing at this server. */
    env: {
      GITHUB_CLIENT_ID: OAUTH_CLIENTS.github.id,
      GITHUB_CLIENT_SECRET: OAUTH_CLIENTS.github.secret,
      GITHUB_AUTHORIZE_URL: `${url}/github/authorize`,
      GITHUB_TOKEN_URL: `${url}/github/token`,
      GITHUB_API_URL: `${url}/github/api`,
      GOOGLE_CLIENT_ID: OAUTH_CLIENTS.google.id,
      GOOGLE_CLIENT_SECRET: OAUTH_CLIENTS.google.secret,
      GOOGLE_AUTHORIZE_URL: `${url}/google/authorize`,
      GOOGLE_TOKEN_URL: `${url}/google/token`,
      GOOGLE_USERINFO_URL: `${url}/google/userinfo`,
    },
    /** The account that "signs in" at the provider on the next authorize requests. */
    setIdentity<P extends Provider>(provider: P, identity: Identity[P]) {
      (identities as { [K in Provider]: Identity[K] | undefined })[provider] = identity;
    },
    /** The next authorize request answers as if the user refused consent. */
    denyNext() {
      denyNext = true;
    },
    /** The next token request answers with this status and body. */
    failNextToken(status: number, body: unknown) {
      nextTokenFailure = { status, body };
    },
    /** The next profile request (/user, /user/emails or userinfo) answers with this status. */
    failNextProfile(status: number) {
      nextProfileFailure = status;
    },
    tokenRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type OAuthServer = Awaited<ReturnType<typeof startOAuthServer>>;

function send(response: http.ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function bearer(request: http.IncomingMessage): string | undefined {
  return /^(?:Bearer|token)\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
}

function basicCredentials(request: http.IncomingMessage): [string, string] | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  return [decoded.slice(0, separator), decoded.slice(separator + 1)];
}
