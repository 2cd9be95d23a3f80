import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for series of recurring meetings. */
export const seriesRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
