import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for GitHub and Google sign-in (GET /auth/github, /auth/google and their callbacks). */
export const oauthRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
