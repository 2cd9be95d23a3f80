import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for password reset (POST /auth/reset-password, /auth/reset-password/confirm). */
export const passwordResetRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  _app,
  _options,
) => {};
