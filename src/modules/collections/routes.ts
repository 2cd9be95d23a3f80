import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';

/** Routes for collections (folders and playlists) and playlist progress. */
export const collectionRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (_app, _options) => {};
