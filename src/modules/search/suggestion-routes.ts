import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { suggest, suggestionQuery, suggestionsSchema } from './suggestions.ts';

/** Search-as-you-type completions. */
export const searchSuggestionRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  app,
  { context },
) => {
  app.get(
    '/search/suggestions',
    {
      onRequest: authenticated,
      schema: {
        tags: ['Search'],
        summary:
          'Completions of what is being typed: video titles, speaker, channel, series and collection ' +
          'names of your organizations, and your recent searches; tolerates typos',
        security,
        querystring: suggestionQuery,
        response: { 200: suggestionsSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => ({ data: await suggest(context.db, callerId(request), request.query) }),
  );
};
