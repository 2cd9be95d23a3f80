import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { fileForm, SPEECH } from '../../../test/helpers/media.ts';
import { startS3Server } from '../../../test/helpers/s3-server.ts';
import {
  startTranscriptionServer,
  type TranscriptionServer,
} from '../../../test/helpers/transcription-server.ts';
import { mediaStoreFor } from './stores.ts';
import { sweepMedia } from './sweep.ts';

type S3Server = Awaited<ReturnType<typeof startS3Server>>;

describe('recordings in an S3-compatible object store', () => {
  let s3: S3Server;
  let stt: TranscriptionServer;
  let testApp: TestApp;
  let alice: SignedUpUser;

  beforeAll(async () => {
    s3 = await startS3Server();
    stt = await startTranscriptionServer();
    stt.say([{ start: 0, end: 2.2, text: 'The night batch job filled the disk.' }], 2.27);
    testApp = await buildTestApp({
      env: { ...s3.env, TRANSCRIBE_PROVIDER: 'openai-compatible', TRANSCRIBE_BASE_URL: stt.baseUrl },
    });
    alice = await signUpUser(testApp.app);
  });
  afterAll(async () => {
    await testApp?.close();
    await stt?.close();
    await s3?.close();
  });

  const createVideo = async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/videos',
      headers: alice.headers,
      payload: { title: 'Stored in S3', duration: '0', organizationId: alice.organizationId },
    });
    return response.json().id as string;
  };
  const upload = (videoId: string) => {
    const body = fileForm(SPEECH, 'retro.wav', 'audio/wav');
    return testApp.app.inject({
      method: 'POST',
      url: `/videos/${videoId}/media`,
      headers: { ...alice.headers, ...body.headers },
      payload: body.payload,
    });
  };
  /** Nothing lingers on the local disk: uploads pass through it on their way to the bucket. */
  const localFiles = () =>
    readdirSync(path.join(testApp.config.dataDir, 'media'), { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile(),
    );

  it('puts the recording in the bucket, plays it through a short-lived presigned redirect, and transcribes it from there', async () => {
    const videoId = await createVideo();
    const stored = await upload(videoId);
    expect(stored.statusCode, stored.body).toBe(201);
    expect(await s3.keys()).toEqual([expect.stringMatching(new RegExp(`^${videoId}/[\\w-]+\\.wav$`))]);
    expect(localFiles()).toEqual([]);

    const played = await testApp.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/media`,
      headers: alice.headers,
    });
    expect(played.statusCode).toBe(302);
    expect(played.headers['cache-control']).toBe('private, no-store');
    const location = played.headers.location as string;
    expect(location).toContain('X-Amz-Signature=');
    expect(location).toContain('X-Amz-Expires=900');
    const part = await fetch(location, { headers: { range: 'bytes=0-99' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(SPEECH.subarray(0, 100))).toBe(true);

    // Transcribed from a local copy of the object, given the name its format goes by.
    const deadline = Date.now() + 20_000;
    let video = (
      await testApp.app.inject({ method: 'GET', url: `/videos/${videoId}`, headers: alice.headers })
    ).json();
    while (video.transcriptStatus !== 'ready' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      video = (
        await testApp.app.inject({ method: 'GET', url: `/videos/${videoId}`, headers: alice.headers })
      ).json();
    }
    expect(video.transcriptStatus).toBe('ready');
    expect(stt.requests.at(-1)?.fileName).toMatch(/\.wav$/);
    expect(Buffer.compare(stt.requests.at(-1)?.fileBytes ?? Buffer.alloc(0), SPEECH)).toBe(0);
    expect(localFiles()).toEqual([]);
  });

  it('keeps one object per video: a new upload replaces it, and purging removes it (the sweep)', async () => {
    const videoId = await createVideo();
    await upload(videoId);
    const first = (await s3.keys()).filter((key) => key.startsWith(videoId));
    await upload(videoId);
    const second = (await s3.keys()).filter((key) => key.startsWith(videoId));
    expect(second).toHaveLength(1);
    expect(second).not.toEqual(first);

    const before = (await s3.keys()).length;
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/videos/${videoId}?permanent=true`,
      headers: alice.headers,
    });
    expect(deleted.statusCode).toBe(200);
    const store = mediaStoreFor(testApp.config);
    expect(await sweepMedia(testApp.database.db, store, new Date())).toBe(0);
    expect(await sweepMedia(testApp.database.db, store, new Date(Date.now() + 2 * 3600_000))).toBe(1);
    expect(await s3.keys()).toHaveLength(before - 1);
    expect((await s3.keys()).some((key) => key.startsWith(videoId))).toBe(false);
  });

  it('redirects a share link’s player to the object too', async () => {
    const videoId = await createVideo();
    await upload(videoId);
    const link = (
      await testApp.app.inject({
        method: 'POST',
        url: `/videos/${videoId}/share-links`,
        headers: alice.headers,
        payload: {},
      })
    ).json();
    const played = await testApp.app.inject({ method: 'GET', url: `/share/${link.token}/media` });
    expect(played.statusCode).toBe(302);
    expect((await fetch(played.headers.location as string)).status).toBe(200);
  });
});
