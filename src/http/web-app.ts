import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Where `npm install` (the `prepare` script) builds the web app. */
export const WEB_APP_DIR = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * Paths the API answers itself with a page, a file, a stream or a redirect, even to a browser:
 * the reference, the document, sign-in redirects, the billing pages, subtitles, metrics.
 */
const ANSWERED_BY_API = [
  /^\/docs(\/|$)/,
  /^\/openapi\.json$/,
  /^\/auth\//,
  /^\/billing\//,
  /^\/health(\/|$)/,
  /^\/metrics$/,
  /^\/assets\//,
  /^\/notifications\/stream$/,
  /\.(vtt|srt)$/,
];

/** A browser navigation asks for HTML first; API clients send `application/json` or `*\/*`. */
function isPageNavigation(request: FastifyRequest) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const accept = request.headers.accept ?? '';
  const html = accept.indexOf('text/html');
  if (html === -1) return false;
  const json = accept.indexOf('application/json');
  return json === -1 || html < json;
}

/**
 * Serves the single-page app: hashed files under /assets cached for a year, and the app's shell
 * for any page a browser navigates to (`/`, `/videos/{id}`, `/reset-password?token=…`), so that
 * links in mails and shared URLs open pages. An API client asking the same URL still gets JSON:
 * the shell answers only when the request prefers HTML, and never on the paths above.
 */
export async function registerWebApp(app: FastifyInstance, { directory }: { directory: string }) {
  const indexFile = join(directory, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn({ directory }, 'the web app is not built (run `npm run build:web`): only the API is served');
    return;
  }
  const shell = readFileSync(indexFile);
  // Registered before the rate limiter, so neither the files nor the shell count against anyone's budget.
  await app.register(fastifyStatic, {
    root: join(directory, 'assets'),
    prefix: '/assets/',
    // File names carry a content hash: a changed file is a new URL.
    immutable: true,
    maxAge: '365d',
    index: false,
    wildcard: true,
    // Media routes decorate their own replies with sendFile.
    decorateReply: false,
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isPageNavigation(request)) return;
    const path = request.url.split('?', 1)[0] as string;
    if (ANSWERED_BY_API.some((pattern) => pattern.test(path))) return;
    // The shell names the current hashed files, so it is revalidated on every navigation.
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(shell);
  });
}
