/**
 * The Knowledge Hub TypeScript SDK: a typed client for every operation of the API, generated from
 * its OpenAPI document (`schema.ts`, kept in step by `npm run generate:sdk`) and sent with
 * openapi-fetch. The web app uses it too.
 *
 *   const hub = createKnowledgeHubClient({ baseUrl: 'http://localhost:3000', apiKey: 'khk_…' });
 *   const videos = expectData(await hub.GET('/videos', { params: { query: { limit: 10 } } }));
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type KnowledgeHubClient = Client<paths>;

export type ClientOptions = {
  /** The service's URL (`http://localhost:3000`); '' for the page's own origin in a browser. */
  baseUrl: string;
  /** An API key or session token, sent as `Authorization: Bearer …`. */
  apiKey?: string;
  /** In a browser: read the CSRF cookie, echoed in `x-csrf-token` on writes made with the session cookie. */
  csrfToken?: () => string | undefined;
  fetch?: typeof fetch;
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function createKnowledgeHubClient(options: ClientOptions): KnowledgeHubClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    credentials: 'same-origin',
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : undefined,
  });
  const { csrfToken } = options;
  if (csrfToken) {
    client.use({
      onRequest({ request }) {
        const token = SAFE_METHODS.has(request.method) ? undefined : csrfToken();
        if (token) request.headers.set('x-csrf-token', token);
        return request;
      },
    });
  }
  return client;
}

/** An error answer of the API, in its one shape: `{ success: false, error, code, details? }`. */
export class KnowledgeHubError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: { path: string; message: string }[];

  constructor(status: number, body: unknown) {
    const shaped = (body ?? {}) as Partial<Schemas['Error']>;
    super(shaped.error ?? `The service answered ${status}`);
    this.name = 'KnowledgeHubError';
    this.status = status;
    this.code = shaped.code ?? 'UNKNOWN';
    this.details = shaped.details ?? [];
  }
}

/** The answer's data (undefined for a 204), or a KnowledgeHubError with the API's message and code. */
export function expectData<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) throw new KnowledgeHubError(result.response.status, result.error);
  return result.data as T;
}
