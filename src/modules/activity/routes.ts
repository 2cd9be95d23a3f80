import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for the activity log and its statistics. */
export const activityRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
