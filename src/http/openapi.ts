import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

const DESCRIPTION = `Knowledge Hub captures, organizes and surfaces institutional knowledge from videos, meetings and documents.

Errors share one shape: \`{success: false, error, code, details?}\`. Lists return \`{data, pagination}\`.
Authenticate with \`Authorization: Bearer <token>\`, where the token is a session id or an API key.`;

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same Zod schemas that
 * validate requests and serialise responses), served at /openapi.json and rendered at /docs.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  { version, serverUrl }: { version: string; serverUrl: string },
) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Knowledge Hub API', version, description: DESCRIPTION },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A session id from sign-in, or an API key (`khk_…`).',
          },
        },
      },
      tags: [{ name: 'Health', description: 'Liveness, readiness, metrics and this document.' }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.get(
    '/openapi.json',
    { schema: { tags: ['Health'], summary: 'This OpenAPI 3.1 document' }, config: { rateLimit: false } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  );

  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', pageTitle: 'Knowledge Hub API reference' },
  });
}
