import { describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../../../test/helpers/app.ts';

describe('health endpoints', () => {
  const ctx = useTestApp();

  it('GET /health answers ok with the version and uptime', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ status: 'ok', version: '1.0.0', uptimeSeconds: expect.any(Number) });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('GET /health/ready reports every check ok when database, migrations and jobs are up', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/health/ready' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', jobs: 'ok' },
    });
  });

  it('GET /metrics exposes request counts and latency by route template and status', async () => {
    const { app } = ctx();
    await app.inject({ method: 'GET', url: '/health' });
    await app.inject({ method: 'GET', url: '/no/such/route' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toMatch(
      /http_requests_total\{method="GET",route="\/health",status_code="200"\} \d+/,
    );
    expect(response.body).toMatch(
      /http_requests_total\{method="GET",route="unmatched",status_code="404"\} 1/,
    );
    expect(response.body).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/health",status_code="200"\} \d+/,
    );
    expect(response.body).toContain('process_cpu_seconds_total');
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 with jobs failing when the job queue is not running', async () => {
    const testApp = await buildTestApp();
    try {
      await testApp.jobs.stop(1000);
      const response = await testApp.app.inject({ method: 'GET', url: '/health/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', migrations: 'ok', jobs: 'fail' },
      });
    } finally {
      await testApp.close();
    }
  });

  it('answers 503 with database and migrations failing when the database is unreachable', async () => {
    const testApp = await buildTestApp();
    try {
      await testApp.database.pool.end();
      const response = await testApp.app.inject({ method: 'GET', url: '/health/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.json().checks).toEqual({ database: 'fail', migrations: 'fail', jobs: 'ok' });
      // Liveness does not depend on the database.
      expect((await testApp.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await testApp.app.close();
      await testApp.jobs.stop(1000);
    }
  });

  it('answers 503 with migrations failing when a shipped migration is missing from the database', async () => {
    const testApp = await buildTestApp();
    try {
      await testApp.database.pool.query('DELETE FROM drizzle.__drizzle_migrations');
      const response = await testApp.app.inject({ method: 'GET', url: '/health/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.json().checks).toEqual({ database: 'ok', migrations: 'fail', jobs: 'ok' });
    } finally {
      await testApp.close();
    }
  });
});
