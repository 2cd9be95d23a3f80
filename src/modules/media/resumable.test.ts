import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import {
  createVideo,
  fileForm,
  filesIn,
  SPEECH,
  silenceWav,
  uploadRecording,
} from '../../../test/helpers/media.ts';
import { localMediaStore } from './storage.ts';
import { sweepMedia } from './sweep.ts';

describe('resumable uploads (tus)', () => {
  let testApp: TestApp;
  let dataDir: string;
  let alice: SignedUpUser;

  beforeAll(async () => {
    testApp = await buildTestApp();
    dataDir = testApp.config.dataDir;
    alice = await signUpUser(testApp.app);
  });
  afterAll(async () => {
    await testApp?.close();
  });

  it('resumes an interrupted upload (tus) and stores the whole recording when the last byte arrives', async () => {
    const videoId = await createVideo(testApp.app, alice);
    const metadata = `videoId ${Buffer.from(videoId).toString('base64')},filename ${Buffer.from('retro.wav').toString('base64')}`;
    const tus = { 'tus-resumable': '1.0.0' };
    const created = await testApp.app.inject({
      method: 'POST',
      url: '/uploads',
      headers: {
        ...alice.headers,
        ...tus,
        'upload-length': String(SPEECH.length),
        'upload-metadata': metadata,
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const location = created.headers.location as string;
    expect(location).toMatch(/^\/uploads\/[\w-]+$/);
    const patch = (offset: number, bytes: Buffer, user = alice) =>
      testApp.app.inject({
        method: 'PATCH',
        url: location,
        headers: {
          ...user.headers,
          ...tus,
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
        },
        payload: bytes,
      });

    // The first part arrives; then the connection breaks.
    const first = await patch(0, SPEECH.subarray(0, 10_000));
    expect(first.statusCode).toBe(204);
    expect(first.headers['upload-offset']).toBe('10000');
    // Someone else cannot see or continue it.
    const bob = await signUpUser(testApp.app);
    const stranger = await testApp.app.inject({
      method: 'HEAD',
      url: location,
      headers: { ...bob.headers, ...tus },
    });
    expect(stranger.statusCode).toBe(404);
    // The client asks where to resume, and a wrong offset is refused.
    const head = await testApp.app.inject({
      method: 'HEAD',
      url: location,
      headers: { ...alice.headers, ...tus },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['upload-offset']).toBe('10000');
    const conflict = await patch(5_000, SPEECH.subarray(5_000, 6_000));
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ success: false, code: 'UPLOAD_OFFSET_CONFLICT' });

    const last = await patch(10_000, SPEECH.subarray(10_000));
    expect(last.statusCode, last.body).toBe(200);
    expect(last.json()).toMatchObject({
      bytes: SPEECH.length,
      contentType: 'audio/wav',
      video: { id: videoId },
    });
    const played = await testApp.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/media`,
      headers: alice.headers,
    });
    expect(played.rawPayload.equals(SPEECH)).toBe(true);
    // Nothing of the upload is left beside the stored file.
    expect(filesIn(dataDir).filter((file) => file.includes(`${path.sep}uploads${path.sep}`))).toEqual([]);
  });

  it('removes a resumable upload left unfinished for a day', async () => {
    const videoId = await createVideo(testApp.app, alice);
    const created = await testApp.app.inject({
      method: 'POST',
      url: '/uploads',
      headers: {
        ...alice.headers,
        'tus-resumable': '1.0.0',
        'upload-length': String(SPEECH.length),
        'upload-metadata': `videoId ${Buffer.from(videoId).toString('base64')}`,
      },
    });
    const id = (created.headers.location as string).split('/').pop() as string;
    const record = path.join(dataDir, 'media', 'uploads', `${id}.json`);
    const store = localMediaStore(dataDir);
    await sweepMedia(testApp.database.db, store, new Date());
    expect(existsSync(record)).toBe(true);
    // A day and more later (tus dates uploads by their creation).
    const info = JSON.parse(readFileSync(record, 'utf8'));
    writeFileSync(
      record,
      JSON.stringify({ ...info, creation_date: new Date(Date.now() - 25 * 3600_000).toISOString() }),
    );
    expect(await sweepMedia(testApp.database.db, store, new Date())).toBeGreaterThanOrEqual(1);
    expect(existsSync(record)).toBe(false);
    expect(existsSync(path.join(dataDir, 'media', 'uploads', id))).toBe(false);
  });

  it('refuses a resumable upload to a video the caller may not edit, or without a video', async () => {
    const videoId = await createVideo(testApp.app, alice);
    const bob = await signUpUser(testApp.app);
    const start = (user: SignedUpUser, metadata: string) =>
      testApp.app.inject({
        method: 'POST',
        url: '/uploads',
        headers: {
          ...user.headers,
          'tus-resumable': '1.0.0',
          'upload-length': '100',
          'upload-metadata': metadata,
        },
      });
    expect((await start(bob, `videoId ${Buffer.from(videoId).toString('base64')}`)).statusCode).toBe(404);
    const missing = await start(alice, `filename ${Buffer.from('x.wav').toString('base64')}`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    const garbled = await start(alice, 'videoId !!!, not tus metadata');
    expect(garbled.statusCode).toBe(400);
    expect(garbled.json().details).toEqual([expect.objectContaining({ path: 'headers.upload-metadata' })]);
    const noVersion = await testApp.app.inject({
      method: 'POST',
      url: '/uploads',
      headers: { ...alice.headers, 'upload-length': '100', 'upload-metadata': '' },
    });
    expect(noVersion.statusCode).toBe(400);
    expect(noVersion.json().details[0].path).toBe('headers.tus-resumable');
  });
});

describe('recordings larger than a JSON body', () => {
  const ctx = useTestApp({ env: { MEDIA_MAX_BYTES: String(8 * 1024 * 1024) } });

  it('streams a 5 MiB recording past the 1 MiB body limit of JSON requests', async () => {
    const alice = await signUpUser(ctx().app);
    const videoId = await createVideo(ctx().app, alice, { title: 'Long silence' });
    const wav = silenceWav(5 * 1024 * 1024);
    const body = fileForm(wav, 'silence.wav', 'audio/wav');
    const response = await uploadRecording(ctx().app, videoId, alice, body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ bytes: wav.length, durationSeconds: 327.677 });
    expect(response.json().video.duration).toBe('5:28');
  });
});
