import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for the signed-in user: /users/me, export, sessions, API keys. */
export const userRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
