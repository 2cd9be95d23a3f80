import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { liveness, readiness } from './schemas.ts';
import { checkReadiness } from './service.ts';

type Options = { database: Database; jobs: JobQueue | undefined; metrics: Registry; version: string };

// Probes call these constantly: they skip the rate limiter so they never touch its table.
const probe = { rateLimit: false } as const;

export const healthRoutes: FastifyPluginAsyncZod<Options> = async (
  app,
  { database, jobs, metrics, version },
) => {
  app.get(
    '/health',
    {
      config: probe,
      schema: { tags: ['Health'], summary: 'Liveness: the process is up', response: { 200: liveness } },
    },
    async () => ({ status: 'ok' as const, version, uptimeSeconds: Math.round(process.uptime()) }),
  );

  app.get(
    '/health/ready',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        summary: 'Readiness: database reachable, migrations current, jobs running',
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      const result = await checkReadiness(database, jobs);
      return reply.status(result.status === 'ok' ? 200 : 503).send(result);
    },
  );

  app.get(
    '/metrics',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        summary: 'Prometheus metrics (text exposition format)',
        response: {
          200: {
            description: 'Prometheus text format',
            content: { 'text/plain': { schema: z.string() } },
          },
        },
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.metrics()),
  );
};
