import { type SQL, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/client.ts';
import { processMetrics } from '../lib/metrics.ts';

type Sources = { db: Db; pool: pg.Pool };

/** A gauge per label set, read from the database when /metrics is scraped (rows: the labels and `value`). */
function databaseGauge(
  registry: Registry,
  sources: Sources,
  definition: { name: string; help: string; labels: string[]; query: SQL },
) {
  return new Gauge({
    name: definition.name,
    help: definition.help,
    labelNames: definition.labels,
    registers: [registry],
    async collect() {
      this.reset();
      // A scrape while the database is away shows the gauge empty rather than failing /metrics.
      const result = await sources.db.execute(definition.query).catch(() => null);
      for (const row of (result?.rows ?? []) as Array<Record<string, string | number>>) {
        const labels = Object.fromEntries(definition.labels.map((label) => [label, String(row[label])]));
        this.set(labels, Number(row.value));
      }
    },
  });
}

/**
 * Prometheus metrics: request counts and latency by route template (never the raw URL) and
 * status; the database pool; job queues, mail outbox, knowledge extraction and AI credits as the
 * database holds them at scrape time; and the process-wide metrics of lib/metrics.ts.
 */
export function registerMetrics(app: FastifyInstance, sources: Sources) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route template and status code.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      // Unmatched URLs share one label so that scanners cannot explode the label set.
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  new Gauge({
    name: 'db_pool_connections',
    help: 'Connections of the request pool: total open, idle, and callers waiting for one.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'total' }, sources.pool.totalCount);
      this.set({ state: 'idle' }, sources.pool.idleCount);
      this.set({ state: 'in_use' }, sources.pool.totalCount - sources.pool.idleCount);
      this.set({ state: 'waiting' }, sources.pool.waitingCount);
    },
  });
  databaseGauge(registry, sources, {
    name: 'jobs',
    help: 'Jobs in the durable queue (pg-boss), by queue and state (created, retry, active, completed, cancelled, failed).',
    labels: ['queue', 'state'],
    query: sql`select name as queue, state::text as state, count(*)::int as value from pgboss.job group by name, state`,
  });
  databaseGauge(registry, sources, {
    name: 'mail_outbox',
    help: 'Mails in the outbox, by status (pending ones are the depth still to send).',
    labels: ['status'],
    query: sql`select status, count(*)::int as value from mail_outbox group by status`,
  });
  databaseGauge(registry, sources, {
    name: 'integration_deliveries',
    help: 'Webhook and Slack deliveries in the outbox, by status (pending: still to send or to retry).',
    labels: ['status'],
    query: sql`select status, count(*)::int as value from integration_deliveries group by status`,
  });
  databaseGauge(registry, sources, {
    name: 'knowledge_extractions',
    help: 'Videos by the outcome of their knowledge extraction (pending, ready, failed, over_budget…).',
    labels: ['status'],
    query: sql`select status, count(*)::int as value from video_knowledge group by status`,
  });
  databaseGauge(registry, sources, {
    name: 'ai_credits_spent',
    help: 'AI credits spent this month (UTC) across organizations, by feature.',
    labels: ['feature'],
    query: sql`select feature, sum(credits)::int as value from ai_usage
      where period = to_char(now() at time zone 'utc', 'YYYY-MM') group by feature`,
  });

  return Registry.merge([registry, processMetrics]);
}
