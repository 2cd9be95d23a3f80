import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for beta access requests. */
export const betaAccessRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
