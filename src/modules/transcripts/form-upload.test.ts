import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { videos } from '../../db/schema/index.ts';
import { parseTranscript } from './parse.ts';
import { fixture, insertVideo, inTeam, type Team, team } from './test-support.ts';

type Part = { name: string; value: string | Uint8Array<ArrayBuffer>; filename?: string; type?: string };

/** A multipart/form-data body as `curl -F` or a browser's FormData sends it. */
async function form(parts: Part[]) {
  const data = new FormData();
  for (const part of parts) {
    if (part.filename === undefined) data.append(part.name, part.value as string);
    else data.append(part.name, new Blob([part.value], { type: part.type ?? '' }), part.filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: data });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') as string,
  };
}

describe('PUT /videos/{id}/transcript with multipart/form-data', () => {
  const ctx = useTestApp();
  let crew: Team;
  beforeAll(async () => {
    crew = await team(ctx());
  });

  async function putForm(videoId: string, user: SignedUpUser, parts: Part[]) {
    const { payload, contentType } = await form(parts);
    return ctx().app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: { ...user.headers, 'content-type': contentType },
      payload,
    });
  }

  const storedTranscript = async (videoId: string) =>
    (
      await ctx().database.db.select({ text: videos.transcript }).from(videos).where(eq(videos.id, videoId))
    )[0]?.text;

  it('takes the file of field "file" as curl -F sends it, its format from its type', async () => {
    const video = await insertVideo(ctx(), inTeam(crew, crew.member));
    const vtt = fixture('design-review.vtt');
    const response = await putForm(video.id, crew.member, [
      { name: 'file', value: vtt, filename: 'design-review.vtt', type: 'text/vtt' },
    ]);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.format).toBe('vtt');
    expect(body.text).toBe(vtt);
    expect(body.segments.map((segment: { text: string }) => segment.text)).toEqual(
      (await parseTranscript(vtt)).segments.map((segment) => segment.text),
    );
    expect(await storedTranscript(video.id)).toBe(vtt);
  });

  it('reads the format from the extension when the type says nothing, and a format field wins', async () => {
    const video = await insertVideo(ctx(), inTeam(crew, crew.member));
    const srt = fixture('incident-retro.srt');
    const byName = await putForm(video.id, crew.member, [
      { name: 'file', value: srt, filename: 'retro.SRT', type: 'application/octet-stream' },
    ]);
    expect(byName.statusCode, byName.body).toBe(200);
    expect(byName.json().format).toBe('srt');

    const plain = await putForm(video.id, crew.member, [
      { name: 'format', value: 'plain' },
      { name: 'file', value: 'We agreed to ship on Friday.', filename: 'notes.vtt', type: 'text/vtt' },
    ]);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.json()).toMatchObject({ format: 'plain', text: 'We agreed to ship on Friday.' });

    const unknown = await putForm(video.id, crew.member, [
      { name: 'format', value: 'docx' },
      { name: 'file', value: 'text', filename: 'notes.txt' },
    ]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body.format' }] });
    expect(await storedTranscript(video.id)).toBe('We agreed to ship on Friday.');
  });

  it('refuses a form without the file, a file that is not UTF-8 text or holds NUL, and garbage: 400, nothing stored', async () => {
    const video = await insertVideo(ctx(), inTeam(crew, crew.member));
    const cases: Array<[Part[], string]> = [
      [[{ name: 'format', value: 'vtt' }], 'body.file'],
      [[{ name: 'transcript', value: 'hello', filename: 'a.txt' }], 'body.file'],
      [[{ name: 'file', value: new Uint8Array([0xff, 0xfe, 0x41]), filename: 'a.txt' }], 'body.file'],
      [[{ name: 'file', value: 'a\u0000b', filename: 'a.txt' }], 'body.file'],
    ];
    for (const [parts, path] of cases) {
      const response = await putForm(video.id, crew.member, parts);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
        details: [{ path }],
      });
    }
    const garbage = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${video.id}/transcript`,
      headers: { ...crew.member.headers, 'content-type': 'multipart/form-data; boundary=xyz' },
      payload: '--xyz\r\nContent-Disposition: form-da',
    });
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json()).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(await storedTranscript(video.id)).toBeNull();
  });

  it('answers 413 for a file over 25 MiB, and keeps the author-or-admin rule (403) and 401', async () => {
    const video = await insertVideo(ctx(), inTeam(crew, crew.member));
    const huge = await putForm(video.id, crew.member, [
      { name: 'file', value: 'word '.repeat((25 * 1024 * 1024) / 5 + 1), filename: 'big.txt' },
    ]);
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
    const file: Part[] = [{ name: 'file', value: 'Hello there.', filename: 'a.txt' }];
    expect((await putForm(video.id, crew.viewer, file)).statusCode).toBe(403);
    const { payload, contentType } = await form(file);
    const anonymous = await ctx().app.inject({
      method: 'PUT',
      url: `/videos/${video.id}/transcript`,
      headers: { 'content-type': contentType },
      payload,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(await storedTranscript(video.id)).toBeNull();
  });

  it('is taken only where a file is expected: POST /videos with a form is still 415', async () => {
    const { payload, contentType } = await form([{ name: 'title', value: 'x' }]);
    const response = await ctx().app.inject({
      method: 'POST',
      url: '/videos',
      headers: { ...crew.member.headers, 'content-type': contentType },
      payload,
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});
