import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SESSION_COOKIE } from '../modules/auth/cookies.ts';
import { OPERATION_IDS } from './operation-ids.ts';

const DESCRIPTION = `Knowledge Hub captures, organizes and surfaces institutional knowledge from videos, meetings and documents.

Errors share one shape: \`{success: false, error, code, details?}\`. Lists return \`{data, pagination}\`.
Authenticate with \`Authorization: Bearer <token>\`, where the token is a session id or an API key; browsers
may use the session cookie set by sign-in instead (state-changing requests then echo the CSRF cookie in \`x-csrf-token\`).`;

type Transform = typeof jsonSchemaTransform;

/**
 * Adds what a client generator needs to every operation: its `operationId` (from
 * OPERATION_IDS; a route without one makes /openapi.json fail, which the OpenAPI test catches) and its security — `[]` on public operations,
 * the bearer token or the session cookie on the others.
 */
const withOperationDetails: Transform = (input) => {
  const { schema, url } = jsonSchemaTransform(input);
  const method = [input.route.method].flat()[0] as string;
  // HEAD routes Fastify adds beside GET ones are not operations of their own; a route's own HEAD is.
  const shadow =
    method === 'HEAD' &&
    !(input.route.config as { swagger?: { exposeHeadRoute?: boolean } } | undefined)?.swagger
      ?.exposeHeadRoute;
  if (shadow || schema.hide) return { schema, url };
  const key = `${method} ${url.replace(/:(\w+)/g, '{$1}')}`;
  const operationId = OPERATION_IDS[key];
  if (!operationId) throw new Error(`no operationId for ${key}: add it to src/http/operation-ids.ts`);
  const secured = Array.isArray(schema.security) && schema.security.length > 0;
  return {
    schema: { ...schema, operationId, security: secured ? [{ bearerAuth: [] }, { cookieAuth: [] }] : [] },
    url,
  };
};

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
      info: {
        title: 'Knowledge Hub API',
        version,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A session id from sign-in, or an API key (`khk_…`).',
          },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description:
              'The session cookie set by sign-in; state-changing requests also send `x-csrf-token`.',
          },
        },
      },
      tags: [{ name: 'Health', description: 'Liveness, readiness, metrics and this document.' }],
    },
    transform: withOperationDetails,
    transformObject: jsonSchemaTransformObject,
  });

  app.get(
    '/openapi.json',
    { schema: { tags: ['Health'], summary: 'This OpenAPI 3.1 document' }, config: { rateLimit: false } },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  );

  // The reference page's bundled script and styles do not change while this version runs.
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/docs/') && !/text\/html/.test(String(reply.getHeader('content-type')))) {
      reply.header('cache-control', 'public, max-age=86400');
    }
  });
  await app.register(scalar, {
    routePrefix: '/docs',
    configuration: { url: '/openapi.json', pageTitle: 'Knowledge Hub API reference' },
  });
}

/**
 * A request body example for the reference page (`.meta(requestExample(…))` on a body schema). It
 * travels as `x-examples`, which @fastify/swagger turns into the media type's `examples`: zod drops
 * a plain `examples` from the input schema of any body that trims or lower-cases a field.
 */
export const requestExample = (summary: string, value: Record<string, unknown>) => ({
  'x-examples': { [summary.toLowerCase().replace(/[^a-z0-9]+/g, '-')]: { summary, value } },
});
