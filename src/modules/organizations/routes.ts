import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for organizations, members and invitations. */
export const organizationRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  _app,
  _options,
) => {};
