import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { recordSearch } from '../saved-searches/history.ts';
import { searchQuery, searchResponseSchema } from './schemas.ts';
import { search } from './service.ts';

const description = `Searches what the caller may read — their organizations' videos (titles, descriptions,
transcripts), clips, comments, channels, series and collections; nothing soft-deleted — ranked by
relevance, then by recency.

Syntax: words, best match (stemmed: "running" finds "run"): a result needs any of them, and those holding
more of the rarer words rank first, so a question can be typed as asked; \`+word\` and \`"a phrase"\` must
match; \`-word\` or \`-"a phrase"\` to exclude, \`OR\` between alternatives (\`budget OR cost\`); the last
word also matches as a prefix ("roadm" finds "roadmap"). Snippets mark matches with \`<mark>\`; everything else in them is HTML-escaped.
Videos found by their transcript carry up to 3 \`moments\`: where the words were said (seconds, speaker).
Each search is added to the caller's history (\`GET /search/history\`).`;

/** `GET /search`. */
export const searchRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/search',
    {
      onRequest: authenticated,
      schema: {
        tags: ['Search'],
        summary: 'Search videos down to the second, and clips, comments, channels, series, collections',
        description,
        security,
        querystring: searchQuery,
        response: { 200: searchResponseSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const userId = callerId(request);
      const results = await search(context.db, userId, request.query, context);
      const { q, page: _page, limit: _limit, organizationId, ...filters } = request.query;
      // History is a by-product: the answer does not wait for it, and losing an entry loses no result.
      recordSearch(context.db, {
        userId,
        organizationId: organizationId ?? null,
        query: q,
        filters: Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)),
        resultCount: results.pagination.total,
        now: context.clock.now(),
      }).catch((error) => request.log.warn({ err: error }, 'search history not recorded'));
      return results;
    },
  );
};
