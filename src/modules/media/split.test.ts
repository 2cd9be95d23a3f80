import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { fileForm, SPEECH } from '../../../test/helpers/media.ts';
import {
  startTranscriptionServer,
  type TranscriptionServer,
} from '../../../test/helpers/transcription-server.ts';
import { chunksOf } from './split.ts';

describe('where a long recording is cut for transcription', () => {
  it('cuts in the middle of the last silence that ends a chunk in time', () => {
    expect(
      chunksOf(
        25,
        [
          { start: 4, end: 5 },
          { start: 8, end: 9 },
          { start: 17, end: 18 },
        ],
        10,
      ),
    ).toEqual([
      { start: 0, end: 8.5 },
      { start: 8.5, end: 17.5 },
      { start: 17.5, end: 25 },
    ]);
  });

  it('cuts at the limit where a stretch has no silence, and leaves a short recording whole', () => {
    expect(chunksOf(25, [], 10)).toEqual([
      { start: 0, end: 10 },
      { start: 10, end: 20 },
      { start: 20, end: 25 },
    ]);
    expect(chunksOf(9, [{ start: 4, end: 5 }], 10)).toEqual([{ start: 0, end: 9 }]);
  });
});

/**
 * A service whose transcription provider takes at most 6 kB, so that the 36 kB recording goes in
 * pieces of about a second of 32 kbit/s MP3; `env` adds to its environment.
 */
function useOversizeApp(env: Record<string, string> = {}) {
  const ctx = { stt: undefined as unknown as TranscriptionServer, app: undefined as unknown as TestApp };
  beforeAll(async () => {
    ctx.stt = await startTranscriptionServer();
    ctx.app = await buildTestApp({
      env: {
        TRANSCRIBE_PROVIDER: 'openai-compatible',
        TRANSCRIBE_BASE_URL: ctx.stt.baseUrl,
        TRANSCRIBE_MAX_BYTES: '6000',
        ...env,
      },
    });
  });
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.stt?.close();
  });
  return ctx;
}

/** Uploads the recording to a new video and waits until its transcription is no longer pending. */
async function uploadAndWait(testApp: TestApp) {
  const alice = await signUpUser(testApp.app);
  const created = await testApp.app.inject({
    method: 'POST',
    url: '/videos',
    headers: alice.headers,
    payload: { title: 'Too big for the provider', duration: '0', organizationId: alice.organizationId },
  });
  const videoId = created.json().id as string;
  const body = fileForm(SPEECH, 'speech.wav', 'audio/wav');
  const upload = await testApp.app.inject({
    method: 'POST',
    url: `/videos/${videoId}/media`,
    headers: { ...alice.headers, ...body.headers },
    payload: body.payload,
  });
  expect(upload.statusCode).toBe(201);
  const deadline = Date.now() + 30_000;
  let video = { transcriptStatus: 'queued', transcriptError: null as string | null };
  while (['queued', 'processing'].includes(video.transcriptStatus) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    video = (
      await testApp.app.inject({ method: 'GET', url: `/videos/${videoId}`, headers: alice.headers })
    ).json();
  }
  return { alice, videoId, video };
}

describe('a recording over the provider’s size limit', () => {
  const ctx = useOversizeApp();

  it('is split with ffmpeg, each piece under the limit, and the pieces’ segments put back in place', async () => {
    const { stt, app: testApp } = ctx;
    stt.say([{ start: 0, end: 0.5, text: 'A piece of the meeting.' }]);
    const { alice, videoId, video } = await uploadAndWait(testApp);
    expect(video, video.transcriptError ?? '').toMatchObject({ transcriptStatus: 'ready' });

    expect(stt.requests.length).toBeGreaterThanOrEqual(2);
    for (const [index, request] of stt.requests.entries()) {
      expect(request.fileName).toBe(`part-${index + 1}.mp3`);
      expect(request.fileType).toBe('audio/mpeg');
      expect(request.fileBytes.length).toBeLessThanOrEqual(6000);
      // An MP3 frame header (or an ID3 tag) opens each piece.
      expect(request.fileBytes.subarray(0, 3).toString('latin1')).toMatch(/^(ID3|\xff)/);
    }
    const transcript = await testApp.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/transcript`,
      headers: alice.headers,
    });
    const starts = transcript.json().segments.map((segment: { start: number }) => segment.start);
    expect(starts).toHaveLength(stt.requests.length);
    expect(starts[0]).toBe(0);
    // Each piece's segment starts where its piece starts in the recording, in order, within it.
    for (let at = 1; at < starts.length; at++) expect(starts[at]).toBeGreaterThan(starts[at - 1]);
    expect(starts.at(-1)).toBeLessThan(2.27);
  });
});

describe('a recording over the limit where ffmpeg cannot run', () => {
  const ctx = useOversizeApp({ FFMPEG_PATH: '/nonexistent/ffmpeg' });

  it('fails the transcription saying why, sends nothing, and keeps the recording', async () => {
    const { alice, videoId, video } = await uploadAndWait(ctx.app);
    expect(video.transcriptStatus).toBe('failed');
    expect(video.transcriptError).toContain('ffmpeg could not split the recording');
    expect(ctx.stt.requests).toEqual([]);
    const played = await ctx.app.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/media`,
      headers: alice.headers,
    });
    expect(played.statusCode).toBe(200);
  });
});
