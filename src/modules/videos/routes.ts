import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for videos: create, list, read, update, soft delete, restore, views. */
export const videoRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
