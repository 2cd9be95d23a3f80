import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { createVideo, fileForm, filesIn, SPEECH, uploadRecording } from '../../../test/helpers/media.ts';
import {
  startTranscriptionServer,
  type TranscriptionServer,
} from '../../../test/helpers/transcription-server.ts';
import { aiUsage, memberships, videoMedia } from '../../db/schema/index.ts';
import { budgetPeriod } from '../ai/budget.ts';
import { localMediaStore } from './storage.ts';
import { sweepMedia } from './sweep.ts';
import { runTranscription, TRANSCRIPTION_RUNS } from './transcription.ts';

describe('recordings: upload, playback, transcription', () => {
  let stt: TranscriptionServer;
  let testApp: TestApp;
  let dataDir: string;
  let alice: SignedUpUser;

  beforeAll(async () => {
    stt = await startTranscriptionServer();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kh-media-'));
    testApp = await buildTestApp({
      env: {
        DATA_DIR: dataDir,
        TRANSCRIBE_PROVIDER: 'openai-compatible',
        TRANSCRIBE_BASE_URL: stt.baseUrl,
        TRANSCRIBE_API_KEY: 'stt-key',
        TRANSCRIBE_MODEL: 'whisper-large-v3',
        MEDIA_MAX_BYTES: String(200 * 1024),
      },
    });
    alice = await signUpUser(testApp.app);
  });
  afterAll(async () => {
    await testApp?.close();
    await stt?.close();
  });

  const videoOf = async (videoId: string, user = alice) =>
    (await testApp.app.inject({ method: 'GET', url: `/videos/${videoId}`, headers: user.headers })).json();
  const waitForStatus = async (videoId: string, wanted: string[], user = alice) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const video = await videoOf(videoId, user);
      if (wanted.includes(video.transcriptStatus)) return video;
      if (Date.now() > deadline) throw new Error(`transcriptStatus stayed ${video.transcriptStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('stores a recording, reads its length from the container, transcribes it, and search and answers find what was said', async () => {
    stt.say([{ start: 0, end: 2.2, text: ' The night batch job filled the disk.' }], 2.27);
    const videoId = await createVideo(testApp.app, alice);
    const response = await uploadRecording(testApp.app, videoId, alice);
    expect(response.statusCode).toBe(201);
    const stored = response.json();
    expect(stored).toMatchObject({
      url: `${testApp.config.appUrl}/videos/${videoId}/media`,
      contentType: 'audio/wav',
      container: 'WAVE',
      codec: 'PCM',
      bytes: SPEECH.length,
      durationSeconds: 2.267,
    });
    expect(stored.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.video).toMatchObject({
      videoUrl: `${testApp.config.appUrl}/videos/${videoId}/media`,
      duration: '0:02',
      durationSeconds: 2.267,
      transcriptStatus: 'queued',
      transcriptError: null,
    });

    const ready = await waitForStatus(videoId, ['ready']);
    // A paid call: one credit per started minute of the recording.
    const budget = await testApp.app.inject({ method: 'GET', url: '/ai/budget', headers: alice.headers });
    expect(budget.json().byFeature).toContainEqual({ feature: 'transcription', credits: 1, operations: 1 });
    expect(ready.transcript).toContain('The night batch job filled the disk.');
    const [sent] = stt.requests;
    expect(sent).toMatchObject({
      authorization: 'Bearer stt-key',
      model: 'whisper-large-v3',
      responseFormat: 'verbose_json',
      granularities: ['segment'],
      fileType: 'audio/wav',
    });
    expect(Buffer.compare(sent?.fileBytes ?? Buffer.alloc(0), SPEECH)).toBe(0);

    const transcript = await testApp.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/transcript`,
      headers: alice.headers,
    });
    expect(transcript.json().segments).toMatchObject([
      { start: 0, end: 2.2, speaker: 'Speaker 1', text: 'The night batch job filled the disk.' },
    ]);
    const search = await testApp.app.inject({
      method: 'GET',
      url: '/search?q=batch%20disk',
      headers: alice.headers,
    });
    expect(search.json().data[0]).toMatchObject({
      videoId,
      moments: [expect.objectContaining({ start: 0 })],
    });
    const answer = await testApp.app.inject({
      method: 'POST',
      url: '/ai/qa',
      headers: alice.headers,
      payload: { question: 'What filled the disk?', videoIds: [videoId] },
    });
    expect(answer.json()).toMatchObject({
      answered: true,
      citations: [expect.objectContaining({ videoId, start: 0 })],
    });
  });

  it('plays the recording back with ranges, ETag and Last-Modified', async () => {
    const videoId = await createVideo(testApp.app, alice);
    expect((await uploadRecording(testApp.app, videoId, alice)).statusCode).toBe(201);
    const url = `/videos/${videoId}/media`;
    const whole = await testApp.app.inject({ method: 'GET', url, headers: alice.headers });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-type']).toMatch(/^audio\/(x-)?wav/);
    expect(whole.rawPayload.equals(SPEECH)).toBe(true);
    expect(whole.headers['last-modified']).toBeDefined();
    const etag = whole.headers.etag as string;
    expect(etag).toBeDefined();

    const part = await testApp.app.inject({
      method: 'GET',
      url,
      headers: { ...alice.headers, range: 'bytes=100-199' },
    });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 100-199/${SPEECH.length}`);
    expect(part.rawPayload.equals(SPEECH.subarray(100, 200))).toBe(true);

    const tail = await testApp.app.inject({
      method: 'GET',
      url,
      headers: { ...alice.headers, range: 'bytes=-10' },
    });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(SPEECH.subarray(SPEECH.length - 10))).toBe(true);

    const beyond = await testApp.app.inject({
      method: 'GET',
      url,
      headers: { ...alice.headers, range: `bytes=${SPEECH.length + 5}-` },
    });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${SPEECH.length}`);
    expect(beyond.json()).toMatchObject({ success: false, code: 'RANGE_NOT_SATISFIABLE' });

    const again = await testApp.app.inject({
      method: 'GET',
      url,
      headers: { ...alice.headers, 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
  });

  it('plays a public video’s recording to anyone, and hides a private one', async () => {
    const shown = await createVideo(testApp.app, alice, { isPublic: true });
    const hidden = await createVideo(testApp.app, alice);
    for (const id of [shown, hidden])
      expect((await uploadRecording(testApp.app, id, alice)).statusCode).toBe(201);
    expect((await testApp.app.inject({ method: 'GET', url: `/videos/${shown}/media` })).statusCode).toBe(200);
    const refused = await testApp.app.inject({ method: 'GET', url: `/videos/${hidden}/media` });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const bob = await signUpUser(testApp.app);
    expect(
      (await testApp.app.inject({ method: 'GET', url: `/videos/${hidden}/media`, headers: bob.headers }))
        .statusCode,
    ).toBe(404);
  });

  it('plays through a share link to people without an account; a password link wants its access token', async () => {
    const videoId = await createVideo(testApp.app, alice);
    expect((await uploadRecording(testApp.app, videoId, alice)).statusCode).toBe(201);
    const share = async (payload: object) =>
      (
        await testApp.app.inject({
          method: 'POST',
          url: `/videos/${videoId}/share-links`,
          headers: alice.headers,
          payload,
        })
      ).json();
    const open = await share({});
    // The shared page points the player at the link's own media address.
    const page = await testApp.app.inject({ method: 'GET', url: `/share/${open.token}` });
    expect(page.json().video.videoUrl).toBe(`${testApp.config.appUrl}/share/${open.token}/media`);
    const played = await testApp.app.inject({
      method: 'GET',
      url: `/share/${open.token}/media`,
      headers: { range: 'bytes=0-9' },
    });
    expect(played.statusCode).toBe(206);
    expect(played.rawPayload.equals(SPEECH.subarray(0, 10))).toBe(true);

    const locked = await share({ password: 'open sesame 42' });
    const refused = await testApp.app.inject({ method: 'GET', url: `/share/${locked.token}/media` });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'PASSWORD_REQUIRED' });
    const access = await testApp.app.inject({
      method: 'POST',
      url: `/share/${locked.token}/verify`,
      payload: { password: 'open sesame 42' },
    });
    const unlocked = await testApp.app.inject({
      method: 'GET',
      url: `/share/${locked.token}/media?access=${encodeURIComponent(access.json().accessToken)}`,
    });
    expect(unlocked.statusCode).toBe(200);

    await testApp.app.inject({ method: 'DELETE', url: `/share-links/${open.id}`, headers: alice.headers });
    expect((await testApp.app.inject({ method: 'GET', url: `/share/${open.token}/media` })).statusCode).toBe(
      404,
    );
  });

  it('answers 404 for a video without a stored recording', async () => {
    const videoId = await createVideo(testApp.app, alice);
    const response = await testApp.app.inject({
      method: 'GET',
      url: `/videos/${videoId}/media`,
      headers: alice.headers,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toBe('This video has no stored recording');
  });

  describe('refuses what it cannot store, and keeps nothing of it', () => {
    it.each([
      [
        'a text file renamed .mp4',
        fileForm(Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nhello\n'), 'meeting.mp4', 'video/mp4'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'a recording cut off half-way',
        fileForm(SPEECH.subarray(0, 15_000), 'cut.wav', 'audio/wav'),
        400,
        'INVALID_MEDIA',
      ],
      [
        'a recording over MEDIA_MAX_BYTES',
        fileForm(Buffer.concat([SPEECH, Buffer.alloc(200 * 1024)]), 'big.wav', 'audio/wav'),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      ['an empty file', fileForm(Buffer.alloc(0), 'empty.wav', 'audio/wav'), 400, 'VALIDATION_ERROR'],
      [
        'a form without a `file` part',
        fileForm(SPEECH, 'retro.wav', 'audio/wav', 'recording'),
        400,
        'VALIDATION_ERROR',
      ],
    ])('%s', async (_what, body, status, code) => {
      const videoId = await createVideo(testApp.app, alice);
      const before = filesIn(dataDir);
      const response = await uploadRecording(testApp.app, videoId, alice, body);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ success: false, code });
      expect(filesIn(dataDir)).toEqual(before);
      expect(
        await testApp.database.db.select().from(videoMedia).where(eq(videoMedia.videoId, videoId)),
      ).toEqual([]);
      expect(await videoOf(videoId)).toMatchObject({ videoUrl: null, transcriptStatus: 'none' });
    });

    it('a JSON body instead of a form: 415', async () => {
      const videoId = await createVideo(testApp.app, alice);
      const response = await testApp.app.inject({
        method: 'POST',
        url: `/videos/${videoId}/media`,
        headers: alice.headers,
        payload: { file: 'not a file' },
      });
      expect(response.statusCode).toBe(415);
      expect(response.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    it('someone else’s video: 404 to an outsider, 403 to a member who is not its author, 401 without credentials', async () => {
      const videoId = await createVideo(testApp.app, alice);
      const before = filesIn(dataDir);
      const outsider = await signUpUser(testApp.app);
      expect((await uploadRecording(testApp.app, videoId, outsider)).statusCode).toBe(404);
      expect((await uploadRecording(testApp.app, videoId, null)).statusCode).toBe(401);

      const member = await signUpUser(testApp.app);
      await testApp.database.db
        .insert(memberships)
        .values({ organizationId: alice.organizationId, userId: member.id, role: 'member' });
      const forbidden = await uploadRecording(testApp.app, videoId, member);
      expect(forbidden.statusCode).toBe(403);
      expect(filesIn(dataDir)).toEqual(before);
    });
  });

  it('replaces a recording: the new file plays, the old one is gone', async () => {
    const videoId = await createVideo(testApp.app, alice, {
      transcript: 'Alice: We keep the transcript we have.',
    });
    const first = (await uploadRecording(testApp.app, videoId, alice)).json();
    // A video with a transcript keeps it: nothing is queued.
    expect(first.video.transcriptStatus).toBe('ready');
    const before = filesIn(dataDir).filter((file) => file.includes(videoId));
    expect(before).toHaveLength(1);
    const second = await uploadRecording(testApp.app, videoId, alice);
    expect(second.statusCode).toBe(201);
    const after = filesIn(dataDir).filter((file) => file.includes(videoId));
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it('removes the file of a deleted video once no video holds it (the sweep)', async () => {
    const videoId = await createVideo(testApp.app, alice);
    expect((await uploadRecording(testApp.app, videoId, alice)).statusCode).toBe(201);
    const before = filesIn(dataDir).length;
    const deleted = await testApp.app.inject({
      method: 'DELETE',
      url: `/videos/${videoId}?permanent=true`,
      headers: alice.headers,
    });
    expect(deleted.statusCode).toBe(200);
    const store = localMediaStore(dataDir);
    // Within the grace period a file may belong to an upload being committed: kept.
    expect(await sweepMedia(testApp.database.db, store, new Date())).toBe(0);
    expect(await sweepMedia(testApp.database.db, store, new Date(Date.now() + 2 * 60 * 60 * 1000))).toBe(1);
    expect(filesIn(dataDir)).toHaveLength(before - 1);
    expect(filesIn(dataDir).some((file) => file.includes(videoId))).toBe(false);
  });

  it('marks a transcription that will not succeed as failed, with the reason; the recording stays', async () => {
    stt.fail(400, 'unsupported audio');
    const videoId = await createVideo(testApp.app, alice);
    expect((await uploadRecording(testApp.app, videoId, alice)).statusCode).toBe(201);
    const failed = await waitForStatus(videoId, ['failed']);
    expect(failed.transcriptError).toContain('answered 400');
    expect(
      (await testApp.app.inject({ method: 'GET', url: `/videos/${videoId}/media`, headers: alice.headers }))
        .statusCode,
    ).toBe(200);
    // A person can still put the transcript.
    const put = await testApp.app.inject({
      method: 'PUT',
      url: `/videos/${videoId}/transcript`,
      headers: alice.headers,
      payload: { text: 'Alice: We will write it ourselves.' },
    });
    expect(put.statusCode).toBe(200);
    expect(await videoOf(videoId)).toMatchObject({ transcriptStatus: 'ready', transcriptError: null });
  });

  it('does not call the provider for an organization whose AI credits are spent', async () => {
    const carol = await signUpUser(testApp.app);
    await testApp.database.db.insert(aiUsage).values({
      organizationId: carol.organizationId,
      period: budgetPeriod(testApp.clock.now()).period,
      feature: 'qa',
      credits: testApp.config.aiMonthlyCredits,
      operations: testApp.config.aiMonthlyCredits,
    });
    stt.say([{ start: 0, end: 2, text: 'Never heard.' }]);
    const calls = stt.requests.length;
    const videoId = await createVideo(testApp.app, carol);
    expect((await uploadRecording(testApp.app, videoId, carol)).statusCode).toBe(201);
    const failed = await waitForStatus(videoId, ['failed'], carol);
    expect(failed.transcriptError).toContain('AI credits');
    expect(stt.requests.length).toBe(calls);
  });

  it('retries a provider that is down, and fails after the last run', async () => {
    stt.fail(503, 'busy');
    const videoId = await createVideo(testApp.app, alice);
    const stored = (await uploadRecording(testApp.app, videoId, alice)).json();
    // The queued job's first run fails and is retried later (with backoff): the video waits again.
    const deadline = Date.now() + 20_000;
    while (!(await videoOf(videoId)).transcriptError && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await videoOf(videoId)).toMatchObject({
      transcriptStatus: 'queued',
      transcriptError: expect.stringContaining('answered 503'),
    });
    const context = {
      config: testApp.config,
      clock: testApp.clock,
      store: localMediaStore(dataDir),
      jobs: testApp.jobs,
    };
    const request = {
      videoId,
      storageKey: (
        await testApp.database.db.select().from(videoMedia).where(eq(videoMedia.videoId, videoId))
      )[0]?.storageKey as string,
    };
    for (let run = 2; run < TRANSCRIPTION_RUNS; run++) {
      await expect(runTranscription(testApp.database.db, context, request)).rejects.toThrow('answered 503');
      expect((await videoOf(videoId)).transcriptStatus).toBe('queued');
    }
    await runTranscription(testApp.database.db, context, request);
    expect(await videoOf(videoId)).toMatchObject({
      transcriptStatus: 'failed',
      transcriptError: expect.stringContaining('503'),
    });
    expect(stored.bytes).toBe(SPEECH.length);
  });
});

describe('recordings without a transcription provider', () => {
  const ctx = useTestApp();

  it('stores the recording and leaves the video waiting for a transcript', async () => {
    const alice = await signUpUser(ctx().app);
    const videoId = await createVideo(ctx().app, alice, { title: 'No provider' });
    const response = await uploadRecording(ctx().app, videoId, alice);
    expect(response.statusCode).toBe(201);
    expect(response.json().video).toMatchObject({ transcriptStatus: 'none', durationSeconds: 2.267 });
  });
});
