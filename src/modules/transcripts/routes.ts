import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for transcripts and subtitles of a video. */
export const transcriptRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
