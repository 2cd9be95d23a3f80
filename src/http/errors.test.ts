import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTestApp } from '../../test/helpers/app.ts';
import { errors } from './errors.ts';
import { idParams } from './ids.ts';
import { paginated, paginationQuery, toPage } from './pagination.ts';

const errorShape = { success: false, error: expect.any(String), code: expect.any(String) };

describe('HTTP conventions', () => {
  const ctx = useTestApp();
  const logged: Array<Record<string, unknown>> = [];

  // Routes that exist only in this test, to exercise the shared plumbing the real modules use.
  beforeAll(() => {
    const { app } = ctx();
    const original = app.log.error.bind(app.log);
    app.addHook('onRequest', async (request) => {
      request.log.error = ((object: Record<string, unknown>, ...rest: unknown[]) => {
        logged.push({ ...object, requestId: request.id });
        return (original as (...args: unknown[]) => void)(object, ...rest);
      }) as typeof request.log.error;
    });
    app.post(
      '/test/things/:id',
      {
        schema: {
          params: idParams,
          body: z.object({ name: z.string().min(1), count: z.number().int(), email: z.email() }),
        },
      },
      async (request) => ({ id: request.params.id, ...request.body }),
    );
    app.get(
      '/test/things',
      { schema: { querystring: paginationQuery, response: { 200: paginated(z.number()) } } },
      async (request) => toPage([1, 2, 3], 45, request.query),
    );
    app.get('/test/boom', async () => {
      throw new Error('database password is hunter2');
    });
    app.get('/test/deadlock', async () => {
      // As drizzle throws it: the driver's error on the cause.
      throw Object.assign(new Error('Failed query: delete from …'), {
        cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      });
    });
    app.get('/test/parent-gone', async () => {
      throw Object.assign(new Error('Failed query: insert into "ai_questions" …'), {
        cause: Object.assign(new Error('violates foreign key constraint'), { code: '23503' }),
      });
    });
    app.get('/test/forbidden', async () => {
      throw errors.forbidden();
    });
  });

  const validId = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

  it('returns the handler result for a valid request', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/test/things/${validId.toUpperCase()}`,
      payload: { name: 'a', count: 2, email: 'a@example.com', unknownField: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ id: validId, name: 'a', count: 2, email: 'a@example.com' });
  });

  it('lists every failing field of an invalid body in details', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/test/things/${validId}`,
      payload: { name: '', count: 1.5, email: 'nope' },
    });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ success: false, error: 'Invalid request', code: 'VALIDATION_ERROR' });
    expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      'body.count',
      'body.email',
      'body.name',
    ]);
    for (const detail of body.details) expect(detail.message).toEqual(expect.any(String));
  });

  it('reports a missing body as a validation error', async () => {
    const response = await ctx().app.inject({ method: 'POST', url: `/test/things/${validId}` });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ ...errorShape, code: 'VALIDATION_ERROR' });
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/test/things/${validId}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "a",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: 'Malformed JSON in request body',
      code: 'INVALID_JSON',
    });
  });

  it('answers 415 for a body that is not JSON', async () => {
    for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const response = await ctx().app.inject({
        method: 'POST',
        url: `/test/things/${validId}`,
        headers: { 'content-type': contentType },
        payload: 'name=a',
      });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toMatchObject({ ...errorShape, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: `/test/things/${validId}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), count: 1, email: 'a@example.com' }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ ...errorShape, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 404 for unknown routes, in the error shape', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/no/such/route?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      success: false,
      error: 'Route GET /no/such/route not found',
      code: 'NOT_FOUND',
    });
  });

  it('answers 404 for an unknown route even when its body is malformed or too large', async () => {
    for (const payload of ['{bad', JSON.stringify({ big: 'x'.repeat(2 * 1024 * 1024) })]) {
      const response = await ctx().app.inject({
        method: 'POST',
        url: '/health',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ ...errorShape, code: 'NOT_FOUND' });
    }
  });

  it('answers 404 (as for an unknown id) when a path id is not a UUID', async () => {
    for (const id of ['123', 'not-a-uuid', '0193a0b4-7c1d-0e2f-8a3b-4c5d6e7f8091', `${validId}0`, '%00']) {
      const response = await ctx().app.inject({
        method: 'POST',
        url: `/test/things/${id}`,
        payload: { name: 'a', count: 1, email: 'a@example.com' },
      });
      expect(response.statusCode, id).toBe(404);
      expect(response.json()).toMatchObject({ ...errorShape, code: 'NOT_FOUND' });
    }
  });

  it('turns an unexpected error into a 500 without internals, logged with the request id', async () => {
    const response = await ctx().app.inject({
      method: 'GET',
      url: '/test/boom',
      headers: { 'x-request-id': 'trace-boom-1' },
    });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      success: false,
      error: 'Internal server error',
      code: 'INTERNAL_ERROR',
    });
    expect(response.body).not.toContain('hunter2');
    expect(response.headers['x-request-id']).toBe('trace-boom-1');
    const entry = logged.find((line) => line.requestId === 'trace-boom-1');
    expect((entry?.err as Error | undefined)?.message).toBe('database password is hunter2');
  });

  it('answers a transaction the database rolled back (deadlock) with a 503 to retry, not a 500', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/test/deadlock' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      success: false,
      error: 'The request met other work on the same records; try again',
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('answers a write whose parent row was deleted meanwhile (foreign key) with a 409, not a 500', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/test/parent-gone' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({
      success: false,
      error: 'Something this request refers to was deleted while it ran',
      code: 'CONFLICT',
    });
  });

  it('keeps the status and code of an AppError', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/test/forbidden' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      success: false,
      error: 'You do not have access to this resource',
      code: 'FORBIDDEN',
    });
  });

  describe('request ids', () => {
    it('mints a UUID when the caller sends none', async () => {
      const response = await ctx().app.inject({ method: 'GET', url: '/health' });
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('echoes a well-formed caller id, on errors too', async () => {
      const response = await ctx().app.inject({
        method: 'GET',
        url: '/nowhere',
        headers: { 'x-request-id': 'client-123.abc' },
      });
      expect(response.statusCode).toBe(404);
      expect(response.headers['x-request-id']).toBe('client-123.abc');
    });

    it('replaces an id that is unsafe to log', async () => {
      const response = await ctx().app.inject({
        method: 'GET',
        url: '/health',
        headers: { 'x-request-id': 'bad id\twith spaces' },
      });
      expect(response.headers['x-request-id']).not.toBe('bad id\twith spaces');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('pagination', () => {
    it('defaults to page 1 and 20 items', async () => {
      const response = await ctx().app.inject({ method: 'GET', url: '/test/things' });
      expect(response.statusCode).toBe(200);
      expect(response.json().pagination).toEqual({ page: 1, limit: 20, total: 45, totalPages: 3 });
    });

    it('accepts page and limit within range', async () => {
      const response = await ctx().app.inject({ method: 'GET', url: '/test/things?page=2&limit=100' });
      expect(response.json()).toEqual({
        data: [1, 2, 3],
        pagination: { page: 2, limit: 100, total: 45, totalPages: 1 },
      });
    });

    it('rejects out-of-range or malformed page and limit with 400', async () => {
      for (const query of ['page=0', 'limit=0', 'limit=101', 'page=abc', 'limit=1.5', 'page=-1']) {
        const response = await ctx().app.inject({ method: 'GET', url: `/test/things?${query}` });
        expect(response.statusCode, query).toBe(400);
        expect(response.json().details[0].path).toMatch(/^querystring\.(page|limit)$/);
      }
    });
  });

  describe('security headers and CORS', () => {
    it('sets security headers on API responses', async () => {
      const response = await ctx().app.inject({ method: 'GET', url: '/health' });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });

    it('allows the configured origin (APP_URL by default) and no other', async () => {
      const allowed = await ctx().app.inject({
        method: 'OPTIONS',
        url: '/health',
        headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' },
      });
      expect(allowed.statusCode).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:3000');
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');

      const other = await ctx().app.inject({
        method: 'GET',
        url: '/health',
        headers: { origin: 'https://evil.example' },
      });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
