import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for channels and follows. */
export const channelRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
