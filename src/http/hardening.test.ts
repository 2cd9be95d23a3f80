import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../test/helpers/factories.ts';
import { requester } from '../../test/helpers/requests.ts';
import { answerClientError } from './errors.ts';
import { unstorableTextPath } from './text-guard.ts';

const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates';
const notFound = { success: false, error: 'Not found', code: 'NOT_FOUND' };

/** Writes raw bytes to the listening server and reads the whole answer (the server closes it). */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('input no column can keep, and requests the framework refuses', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let ana: SignedUpUser;
  let videoId: string;
  let port: number;

  beforeAll(async () => {
    ana = await signUpUser(ctx().app, { name: 'Ana' });
    const video = await request(ana, 'POST', '/videos', {
      organizationId: ana.organizationId,
      title: 'Roadmap',
      duration: '1:00',
      transcript: 'Ana: We ship in March.',
    });
    videoId = video.json().id;
    await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx().app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await ctx().app.close();
  });

  const videoCount = async () => (await request(ana, 'GET', '/videos')).json().pagination.total;

  it('refuses a NUL character or an unpaired surrogate anywhere in a JSON body with 400, storing nothing', async () => {
    const before = await videoCount();
    for (const [payload, path] of [
      [{ title: 'a\u0000b' }, 'body.title'],
      [{ title: 'a\ud800b' }, 'body.title'],
      [{ title: 'Fine', description: 'tail \udc00' }, 'body.description'],
      [{ title: 'Fine', transcript: [{ start: 0, end: 1, text: 'x\u0000' }] }, 'body.transcript.0.text'],
    ] as const) {
      const response = await request(ana, 'POST', '/videos', {
        organizationId: ana.organizationId,
        duration: '1',
        ...payload,
      });
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toStrictEqual({
        success: false,
        error: 'Invalid request',
        code: 'VALIDATION_ERROR',
        details: [{ path, message: UNSTORABLE }],
      });
    }
    // JSON text with the escape itself, as a client would send it.
    const escaped = await ctx().app.inject({
      method: 'PATCH',
      url: `/videos/${videoId}`,
      headers: { ...ana.headers, 'content-type': 'application/json' },
      payload: '{"title":"a\\ud800b"}',
    });
    expect(escaped.statusCode).toBe(400);
    expect(await videoCount()).toBe(before);
    expect((await request(ana, 'GET', `/videos/${videoId}`)).json().title).toBe('Roadmap');
  });

  it('refuses them in query strings and raw transcripts, and answers 404 for them in a path', async () => {
    const search = await request(ana, 'GET', '/search?q=a%00b');
    expect(search.statusCode).toBe(400);
    expect(search.json().details).toStrictEqual([{ path: 'querystring.q', message: UNSTORABLE }]);
    const raw = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: { ...ana.headers, 'content-type': 'text/plain' },
      payload: 'Ana: We ship in April.\u0000',
    });
    expect(raw.statusCode).toBe(400);
    expect(raw.json().details).toStrictEqual([{ path: 'body.text', message: UNSTORABLE }]);
    const transcript = (await request(ana, 'GET', `/videos/${videoId}/transcript`)).json();
    expect(transcript.text).toContain('March');
    const path = await request(ana, 'GET', '/share/abc%00def');
    expect(path.statusCode).toBe(404);
  });

  it('answers a path id too long or badly percent-encoded as an unknown id, in the error shape', async () => {
    for (const url of [`/videos/${'a'.repeat(300)}`, '/videos/%E0%A4%A', `/videos/${'%ZZ'.repeat(5)}`]) {
      const response = await request(ana, 'GET', url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json(), url).toStrictEqual(notFound);
    }
  });

  it('answers what the HTTP parser refuses in the error shape', async () => {
    const control = await rawRequest(port, 'GET /health HTTP/1.1\r\nhost: x\r\nx-bad: a\u0001b\r\n\r\n');
    expect(control).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(bodyOf(control)).toStrictEqual({
      success: false,
      error: 'Malformed HTTP request',
      code: 'BAD_REQUEST',
    });
    const long = await rawRequest(port, `GET /search?q=${'a'.repeat(100_000)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(long).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(long)).toMatchObject({ success: false, code: 'HEADERS_TOO_LARGE' });
  });

  it('says a field left out is required', async () => {
    const response = await request(ana, 'POST', '/videos', { title: 'No home', duration: '1' });
    expect(response.statusCode).toBe(400);
    expect(response.json().details).toStrictEqual([{ path: 'body.organizationId', message: 'Required' }]);
  });

  it('compresses answers for clients that accept it, and only for them', async () => {
    const plain = await request(ana, 'GET', '/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['gzip', 'br']) {
      const packed = await request(ana, 'GET', '/openapi.json', undefined, { 'accept-encoding': encoding });
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    }
  });

  it('tells proxies and browsers to keep no copy of an answer', async () => {
    for (const response of [
      await request(ana, 'GET', '/users/me'),
      await request(ana, 'GET', `/videos/${videoId}`),
      await request(null, 'GET', '/users/me'),
      await request(ana, 'GET', '/nowhere'),
    ]) {
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('unstorableTextPath', () => {
  it('walks values and keys, however deep, and names the first offender', () => {
    expect(unstorableTextPath({ a: ['ok', { b: 'x\u0000' }] }, 'body')).toBe('body.a.1.b');
    expect(unstorableTextPath({ 'k\ud800': 1 }, 'body')).toBe('body');
    expect(unstorableTextPath({ a: 'fine 😀', n: 1, t: true, z: null }, 'body')).toBeNull();
    let deep: unknown = 'x\u0000';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(unstorableTextPath(deep, 'body')).toMatch(/^body(\.0)+$/);
  });
});

describe('answerClientError', () => {
  it('answers a request that timed out with 408, anything unknown with 400, nothing on a closed socket', async () => {
    const answered = async (code: string | undefined) => {
      const socket = new PassThrough();
      answerClientError(Object.assign(new Error('x'), { code }), socket);
      return (await socket.toArray()).join('');
    };
    expect(await answered('ERR_HTTP_REQUEST_TIMEOUT')).toMatch(
      /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"code":"REQUEST_TIMEOUT"/,
    );
    expect(await answered('HPE_INVALID_METHOD')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const closed = new PassThrough();
    closed.destroy();
    expect(() => answerClientError(new Error('x'), closed)).not.toThrow();
  });
});
