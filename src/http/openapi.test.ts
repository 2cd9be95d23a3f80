import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { signUpUser } from '../../test/helpers/factories.ts';
import { EXAMPLE_ID } from './ids.ts';

type RequestBody = {
  content: Record<string, { examples?: Record<string, { summary: string; value: unknown }> }>;
};

type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

describe('OpenAPI document and reference page', () => {
  const ctx = useTestApp();

  async function fetchDocument() {
    const response = await ctx().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return response.json();
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares version 1.0.0 and the bearerAuth scheme', async () => {
    const document = await fetchDocument();
    expect(document.info.version).toBe('1.0.0');
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes every operation with a tag, a summary and a success response schema', async () => {
    const document = await fetchDocument();
    const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual(
      expect.arrayContaining(['GET /health', 'GET /health/ready', 'GET /metrics', 'GET /openapi.json']),
    );
    for (const { method, path, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(operation.tags?.length, where).toBeGreaterThan(0);
      expect(operation.summary, where).toEqual(expect.any(String));
      if (path === '/openapi.json') continue;
      const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'));
      // Browser redirects (OAuth start and callback) succeed with a bodiless 302.
      if (!success && operation.responses?.['302']) continue;
      expect(success, where).toBeDefined();
      // The tus protocol's answers (resumable uploads) carry their news in headers.
      if (path.startsWith('/uploads') && success?.[0] !== '200') continue;
      if (path.startsWith('/uploads') && method === 'head') continue;
      expect(Object.values(success?.[1].content ?? {})[0]?.schema, where).toBeDefined();
    }
  });

  it('names every operation once, and says which need credentials and which need none', async () => {
    const document = await fetchDocument();
    const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const byId = Object.fromEntries(operations.map(({ operation }) => [operation.operationId, operation]));
    expect(byId.listVideos?.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(byId.getSession?.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    for (const open of ['signIn', 'signUp', 'getHealth', 'requestPasswordReset', 'getOpenApiDocument']) {
      expect(byId[open]?.security, open).toEqual([]);
    }
    expect(document.components.securitySchemes.cookieAuth).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'svc-auth.session_token',
    });
  });

  it("passes Redocly's recommended lint rules with no error", async () => {
    const document = await fetchDocument();
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(
      errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('shows a request example on the main operations, and each is a request the API accepts', async () => {
    const document = await fetchDocument();
    const operations = Object.entries(
      document.paths as Record<string, Record<string, Operation & { requestBody?: RequestBody }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    const exampleOf = (operationId: string) => {
      const found = operations.find(({ operation }) => operation.operationId === operationId);
      const examples = found?.operation.requestBody?.content['application/json']?.examples ?? {};
      return { ...found, example: Object.values(examples)[0]?.value };
    };
    // Real ids where the example shows the placeholder one, and a fresh account for the sign-up.
    const user = await signUpUser(ctx().app);
    const video = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: user.headers,
      payload: { title: 'Sync', duration: '30:00', organizationId: user.organizationId },
    });
    const realIds = (value: unknown) =>
      JSON.parse(
        JSON.stringify(value)
          .replaceAll(EXAMPLE_ID, user.organizationId)
          .replace('ada@example.com', `ada-${user.id}@example.com`),
      );
    for (const operationId of [
      'signUp',
      'createVideo',
      'updateVideo',
      'askQuestion',
      'createComment',
      'createClip',
      'createCollection',
    ]) {
      const { path, method, example } = exampleOf(operationId);
      expect(example, operationId).toBeTypeOf('object');
      const response = await ctx().app.inject({
        method: (method as string).toUpperCase() as 'POST',
        url: (path as string).replace('{id}', video.json().id),
        headers: operationId === 'signUp' ? {} : user.headers,
        payload: realIds(example),
      });
      expect(response.statusCode, `${operationId}: ${response.body}`).toBeLessThan(300);
    }
    expect(exampleOf('signIn').example).toMatchObject({ email: 'ada@example.com' });
  });

  it('documents the readiness 503 with the same schema as its 200', async () => {
    const document = await fetchDocument();
    const responses = document.paths['/health/ready'].get.responses;
    expect(responses['503'].content['application/json'].schema).toEqual(
      responses['200'].content['application/json'].schema,
    );
  });

  it('serves the interactive reference at /docs with its script bundled (no CDN)', async () => {
    const { app } = ctx();
    // The page loads its script by a relative URL, so /docs redirects to /docs/.
    const redirect = await app.inject({ method: 'GET', url: '/docs' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/docs/');
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('/openapi.json');
    const scriptSrc = page.body.match(/<script[^>]+src="([^"]+)"/)?.[1];
    expect(scriptSrc).toBeDefined();
    expect(scriptSrc).not.toMatch(/^https?:/);
    const script = await app.inject({
      method: 'GET',
      url: new URL(scriptSrc as string, 'http://x/docs/').pathname,
    });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=86400');
    expect(script.headers['ratelimit-remaining']).toBeUndefined();
    const compressed = await app.inject({
      method: 'GET',
      url: new URL(scriptSrc as string, 'http://x/docs/').pathname,
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(compressed.headers['content-encoding']).toBe('gzip');
    expect(compressed.rawPayload.length).toBeLessThan(script.rawPayload.length / 2);
  });
});
