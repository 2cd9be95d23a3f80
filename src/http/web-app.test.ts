import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { signUpUser } from '../../test/helpers/factories.ts';

/** A built app of the test's own: the shell and one hashed script. */
function builtWebApp() {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'kh-web-'));
  mkdirSync(path.join(directory, 'assets'));
  writeFileSync(
    path.join(directory, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(
    path.join(directory, 'assets', 'index-abc123.js'),
    `console.log(${JSON.stringify('x'.repeat(4000))});`,
  );
  return directory;
}

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('the web app, served beside the API', () => {
  const ctx = useTestApp({ webAppDir: builtWebApp() });
  const get = (url: string, accept?: string, extra: Record<string, string> = {}) =>
    ctx().app.inject({ method: 'GET', url, headers: { ...(accept ? { accept } : {}), ...extra } });

  it.each([
    '/',
    '/sign-in',
    '/reset-password?token=abc',
    '/invitations/tok_123',
    '/sign-up?email=a%40b.c',
    '/share/tok',
  ])('answers a browser navigating to %s with the app shell, revalidated on every visit', async (url) => {
    const response = await get(url, BROWSER);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toContain('<div id="root"></div>');
  });

  it('answers a browser opening a meeting’s URL with the page, and an API client with the video', async () => {
    const { app } = ctx();
    const alice = await signUpUser(app);
    const created = await app.inject({
      method: 'POST',
      url: '/videos',
      headers: alice.headers,
      payload: { title: 'Planning', duration: '1:00', organizationId: alice.organizationId },
    });
    const url = `/videos/${created.json().id}`;
    expect((await get(url, BROWSER, alice.headers)).body).toContain('<div id="root"></div>');
    const api = await get(url, 'application/json', alice.headers);
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ id: created.json().id, title: 'Planning' });
    expect((await get(url, '*/*', alice.headers)).json()).toMatchObject({ title: 'Planning' });
  });

  it.each([['application/json'], ['*/*'], [undefined]])(
    'keeps the JSON 404 for an unknown path asked with Accept %s',
    async (accept) => {
      const response = await get('/no-such-page', accept);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    },
  );

  it('never shadows what the API serves to browsers itself: the reference, the document, sign-in, billing pages, captions', async () => {
    expect((await get('/docs', BROWSER)).headers['content-type']).not.toBe('text/html; charset=utf-8');
    expect((await get('/openapi.json', BROWSER)).json()).toMatchObject({ openapi: '3.1.0' });
    expect((await get('/health', BROWSER)).json()).toMatchObject({ status: 'ok' });
    expect((await get('/auth/github', BROWSER)).statusCode).toBe(404);
    expect((await get('/auth/github', BROWSER)).json()).toMatchObject({ code: 'NOT_FOUND' });
    const subtitles = await get('/videos/00000000-0000-0000-0000-000000000000/subtitles.vtt', BROWSER);
    expect(subtitles.body).not.toContain('<div id="root">');
  });

  it('answers writes and non-HTML requests with the API, whatever they accept', async () => {
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/',
      headers: { accept: BROWSER, 'content-type': 'application/json' },
      payload: {},
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false });
  });

  it('serves hashed assets for a year, compressed', async () => {
    const response = await get('/assets/index-abc123.js', '*/*', { 'accept-encoding': 'gzip' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-type']).toMatch(/^application\/javascript|^text\/javascript/);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(response.rawPayload).toString()).toContain('console.log');
  });

  it('answers a missing asset with the JSON 404, not the shell', async () => {
    const response = await get('/assets/index-gone.js', BROWSER);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  it('lets the pages load recordings and thumbnails from elsewhere, and scripts only from itself', async () => {
    const csp = (await get('/', BROWSER)).headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("media-src 'self' https: blob:");
    expect(csp).toContain("img-src 'self' data: https:");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe('the web app and the rate limit', () => {
  const ctx = useTestApp({ webAppDir: builtWebApp(), env: { RATE_LIMIT_PER_MINUTE: '3' } });

  it('never counts the app’s files or pages against a client’s budget', async () => {
    const { app } = ctx();
    const alice = await signUpUser(app);
    for (let i = 0; i < 5; i++) {
      const asset = await app.inject({
        method: 'GET',
        url: '/assets/index-abc123.js',
        headers: alice.headers,
      });
      expect(asset.statusCode).toBe(200);
      const page = await app.inject({
        method: 'GET',
        url: '/library',
        headers: { ...alice.headers, accept: BROWSER },
      });
      expect(page.statusCode).toBe(200);
    }
    // The same credential's API budget is untouched: three calls, then the fourth is refused.
    const calls = [];
    for (let i = 0; i < 4; i++) {
      calls.push((await app.inject({ method: 'GET', url: '/users/me', headers: alice.headers })).statusCode);
    }
    expect(calls).toEqual([200, 200, 200, 429]);
  });
});

describe('the service without a built web app', () => {
  const ctx = useTestApp({ webAppDir: path.join(os.tmpdir(), 'kh-web-never-built') });

  it('serves the API alone: a browser at / gets the JSON 404', async () => {
    const response = await ctx().app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});
