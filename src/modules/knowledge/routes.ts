import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { optionalCallerId, optionalSecurity } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { videoKnowledgeSchema } from './schemas.ts';
import { getVideoKnowledge } from './views.ts';

/** What the extraction made of one video's transcript. */
export const knowledgeRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (app, { context }) => {
  app.get(
    '/videos/:id/knowledge',
    {
      schema: {
        tags: ['Transcripts'],
        summary:
          "What a video's transcript holds: summary, chapters, decisions, action items, questions and topics, each with the second it was said",
        description:
          'Extracted in the background after a transcript is stored or changed (see `status`). Readable by whoever ' +
          'may read the transcript: anonymously when the video is public.',
        security: optionalSecurity,
        params: idParams,
        response: { 200: videoKnowledgeSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getVideoKnowledge(context.db, optionalCallerId(request), request.params.id),
  );
};
