import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/app.ts';
import { signUpUser } from '../../test/helpers/factories.ts';
import { createSession } from '../modules/auth/sessions.ts';

describe('rate limiting shared through PostgreSQL', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    second = await buildTestApp({ env: { RATE_LIMIT_PER_MINUTE: '3' }, databaseUrl: first.databaseUrl });
    for (const { app } of [first, second]) {
      app.get('/test/limited', async () => ({ ok: true }));
      app.get('/test/busy', { config: { rateLimit: { max: 150, timeWindow: 60_000 } } }, async () => ({
        ok: true,
      }));
    }
  });
  afterAll(async () => {
    await second?.app.close();
    await second?.jobs.stop(1000);
    await second?.database.close();
    await first?.close();
  });

  it('counts requests of one credential across instances and answers 429 past the limit', async () => {
    const headers = { authorization: 'Bearer credential-a' };
    const answers = [];
    for (const testApp of [first, first, second, second]) {
      answers.push(await testApp.app.inject({ method: 'GET', url: '/test/limited', headers }));
    }
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers[0]?.headers['ratelimit-limit']).toBe('3');
    expect(answers[0]?.headers['ratelimit-remaining']).toBe('2');
    expect(answers[2]?.headers['ratelimit-remaining']).toBe('0');

    const limited = answers[3];
    expect(limited?.json()).toEqual({
      success: false,
      error: expect.stringContaining('Rate limit exceeded'),
      code: 'RATE_LIMITED',
    });
    const retryAfter = Number(limited?.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('keeps a separate budget per credential and per anonymous IP', async () => {
    const other = await first.app.inject({
      method: 'GET',
      url: '/test/limited',
      headers: { authorization: 'Bearer credential-b' },
    });
    expect(other.statusCode).toBe(200);
    const anonymous = await first.app.inject({ method: 'GET', url: '/test/limited' });
    expect(anonymous.statusCode).toBe(200);
  });

  it('stores only a hash of the credential', async () => {
    const { rows } = await first.database.pool.query<{ key: string }>('SELECT key FROM rate_limits');
    expect(rows.length).toBeGreaterThan(0);
    for (const { key } of rows) expect(key).not.toContain('credential-a');
  });

  it('counts a signed-in caller by their session across instances, storing its id, not its token', async () => {
    const user = await signUpUser(first.app);
    const otherSession = await createSession(first.database.db, first.clock, { userId: user.id });
    const hit = (testApp: TestApp, token: string) =>
      testApp.app.inject({
        method: 'GET',
        url: '/test/limited',
        headers: { authorization: `Bearer ${token}` },
      });
    const statuses = [];
    for (const testApp of [first, second, first, second])
      statuses.push((await hit(testApp, user.token)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await hit(second, otherSession.token)).statusCode).toBe(200);

    const { rows } = await first.database.pool.query<{ key: string }>('SELECT key FROM rate_limits');
    const keys = rows.map((row) => row.key);
    expect(keys.filter((key) => key.endsWith(`session:${otherSession.id}`))).toHaveLength(1);
    for (const key of keys) expect(key).not.toContain(user.token);
  });

  it('counts large budgets in memory and shares them through the database in batches', async () => {
    const headers = { authorization: 'Bearer busy-client' };
    const hit = (testApp: TestApp) => testApp.app.inject({ method: 'GET', url: '/test/busy', headers });

    for (let i = 0; i < 100; i++) expect((await hit(first)).statusCode).toBe(200);
    // The first instance writes its count in its next batch (every quarter second; later on a busy
    // machine); the second then starts from it.
    const shared = async () =>
      (
        await first.database.pool.query<{ count: number }>(
          "SELECT count FROM rate_limits WHERE key LIKE 'GET:/test/busy|%'",
        )
      ).rows[0]?.count ?? 0;
    const sharedOnceAt = async (count: number) => {
      for (let waited = 0; (await shared()) < count && waited < 10_000; waited += 50) await sleep(50);
      return shared();
    };
    expect(await sharedOnceAt(100)).toBe(100);
    const statuses: number[] = [];
    for (let i = 0; i < 51; i++) statuses.push((await hit(second)).statusCode);
    expect(statuses.slice(0, 50).every((status) => status === 200)).toBe(true);
    expect(statuses[50]).toBe(429);

    expect(await sharedOnceAt(151)).toBe(151);
  });

  it('never limits the health probes', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await first.app.inject({ method: 'GET', url: '/health' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('removes expired windows with the rate-limit-cleanup job', async () => {
    const { pool } = first.database;
    await pool.query(
      `INSERT INTO rate_limits (key, count, reset_at) VALUES
        ('test|expired', 5, now() - interval '10 minutes'), ('test|current', 1, now() + interval '1 minute')`,
    );
    await first.jobs.send('rate-limit-cleanup');
    const deadline = Date.now() + 15_000;
    let keys: string[] = [];
    while (Date.now() < deadline) {
      keys = (
        await pool.query<{ key: string }>("SELECT key FROM rate_limits WHERE key LIKE 'test|%'")
      ).rows.map((row) => row.key);
      if (!keys.includes('test|expired')) break;
      await sleep(200);
    }
    expect(keys).toEqual(['test|current']);
  });
});
