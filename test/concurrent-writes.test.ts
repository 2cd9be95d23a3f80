import { describe, expect, it } from 'vitest';
import { useTestApp } from './helpers/app.ts';
import { type SignedUpUser, signUpUser } from './helpers/factories.ts';
import { createVideo } from './helpers/media.ts';

/**
 * Many writes at once on one organization's meetings — transcripts stored, speakers renamed,
 * videos edited, comments, clips and questions — then a video and the organization deleted while
 * others still read and write them. No answer is a 500: deadlocks between these transactions
 * are retried (a write that still loses one to a deletion it raced is told to retry: 503 with
 * Retry-After), a write whose video or organization vanished is a 409, a name taken meanwhile a
 * 400; and what is left is consistent: every passage names its speakers as they are now called.
 */

const SPEAKERS = ['Maya Chen', 'Daniel Okafor', 'Aisha Mensah'];
const ROUNDS = 12;

/** A WebVTT transcript of 30 cues whose speakers take turns in an order that depends on `n`. */
function transcript(n: number) {
  const at = (seconds: number) =>
    `00:${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}.000`;
  const cues = Array.from({ length: 30 }, (_, i) => {
    const speaker = SPEAKERS[(i + n) % SPEAKERS.length];
    return `${at(i * 10)} --> ${at(i * 10 + 9)}\n<v ${speaker}>Decision: search v2 ships on January ${((n + i) % 28) + 1}. Daniel prepares the batch job by February ${(i % 27) + 1}.`;
  });
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}

describe('concurrent writes on one organization', () => {
  const ctx = useTestApp();
  const statuses: Array<{ label: string; status: number; retryAfter?: unknown }> = [];

  async function call(
    user: SignedUpUser,
    label: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
  ) {
    const vtt = typeof payload === 'string';
    const response = await ctx().app.inject({
      method,
      url,
      headers: { ...user.headers, ...(vtt ? { 'content-type': 'text/vtt' } : {}) },
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
    statuses.push({ label, status: response.statusCode, retryAfter: response.headers['retry-after'] });
    return response;
  }

  /**
   * Answers that are not a client's. A 503 with Retry-After is one: a write the database aborted to
   * break a deadlock with the deletion it raced, which it may send again (docs/api-conventions.md).
   */
  const serverErrors = () =>
    statuses
      .filter(({ status, retryAfter }) => status >= 500 && !(status === 503 && retryAfter === '1'))
      .map(({ label, status }) => ({ label, status }));

  it("answers every request below 500 and leaves every passage under its speakers' current names", async () => {
    const owner = await signUpUser(ctx().app);
    const videoIds: string[] = [];
    for (let i = 0; i < 4; i++)
      videoIds.push(await createVideo(ctx().app, owner, { title: `Sync ${i}`, duration: '10:00' }));
    await call(owner, 'transcript', 'PUT', `/videos/${videoIds[0]}/transcript`, transcript(0));
    const listed = await call(owner, 'speakers', 'GET', `/speakers?organizationId=${owner.organizationId}`);
    const speakerIds = (listed.json().data as Array<{ id: string }>).map((speaker) => speaker.id);
    expect(speakerIds).toHaveLength(SPEAKERS.length);

    const writes: Promise<unknown>[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      const videoId = videoIds[k % videoIds.length] as string;
      writes.push(
        call(owner, 'transcript', 'PUT', `/videos/${videoId}/transcript`, transcript(k)),
        call(owner, 'rename', 'PATCH', `/speakers/${speakerIds[k % speakerIds.length]}`, {
          name: `Speaker ${k}`,
        }),
        call(owner, 'edit', 'PATCH', `/videos/${videoId}`, { title: `Sync ${k}` }),
        call(owner, 'comment', 'POST', `/videos/${videoId}/comments`, { body: `Noted ${k}`, timestamp: k }),
        call(owner, 'clip', 'POST', `/videos/${videoId}/clips`, {
          title: `Clip ${k}`,
          startTime: 1,
          endTime: 5,
        }),
        call(owner, 'question', 'POST', '/ai/qa', {
          question: 'When does search v2 ship?',
          videoIds: [videoId],
        }),
      );
    }
    await Promise.all(writes);
    expect(serverErrors()).toEqual([]);
    expect(statuses.filter(({ status }) => status >= 300)).toEqual([]);

    const { rows } = await ctx().database.pool.query(
      `SELECT count(*)::int AS stale FROM transcript_chunks c
         CROSS JOIN LATERAL unnest(c.speaker_ids, c.speaker_names) AS named(id, name)
         JOIN speakers s ON s.id = named.id
        WHERE c.organization_id = $1 AND s.name <> named.name`,
      [owner.organizationId],
    );
    const { rows: named } = await ctx().database.pool.query(
      'SELECT count(*)::int AS n FROM transcript_chunks WHERE organization_id = $1 AND cardinality(speaker_ids) > 0',
      [owner.organizationId],
    );
    expect(named[0].n).toBeGreaterThan(0);
    expect(rows[0].stale).toBe(0);
  }, 120_000);

  it('gives a name to one speaker when several are renamed to it at once: the others are told it is taken', async () => {
    const owner = await signUpUser(ctx().app);
    const videoId = await createVideo(ctx().app, owner, { title: 'Sync', duration: '10:00' });
    await call(owner, 'transcript', 'PUT', `/videos/${videoId}/transcript`, transcript(0));
    const listed = await call(owner, 'speakers', 'GET', `/speakers?organizationId=${owner.organizationId}`);
    const speakerIds = (listed.json().data as Array<{ id: string }>).map((speaker) => speaker.id);
    const renames = await Promise.all(
      speakerIds.map((id) => call(owner, 'rename', 'PATCH', `/speakers/${id}`, { name: 'Host' })),
    );
    expect(renames.map((response) => response.statusCode).sort()).toEqual([200, 400, 400]);
    for (const refused of renames.filter((response) => response.statusCode === 400)) {
      expect(refused.json().code).toBe('SPEAKER_NAME_TAKEN');
    }
  });

  it('answers reads and writes racing the permanent deletion of their video without a server error', async () => {
    const owner = await signUpUser(ctx().app);
    statuses.length = 0;
    for (let round = 0; round < 3; round++) {
      const videoId = await createVideo(ctx().app, owner, { title: `Sync ${round}`, duration: '10:00' });
      await call(owner, 'transcript', 'PUT', `/videos/${videoId}/transcript`, transcript(round));
      const racing: Promise<unknown>[] = [];
      for (let k = 0; k < 6; k++) {
        for (const path of ['', '/transcript', '/subtitles.vtt', '/knowledge', '/clips', '/comments'])
          racing.push(call(owner, `read${path}`, 'GET', `/videos/${videoId}${path}`));
        racing.push(
          call(owner, 'clip', 'POST', `/videos/${videoId}/clips`, {
            title: 'Clip',
            startTime: 1,
            endTime: 5,
          }),
          call(owner, 'share link', 'POST', `/videos/${videoId}/share-links`, {}),
          call(owner, 'view', 'POST', `/videos/${videoId}/views`, { position: 3 }),
          call(owner, 'question', 'POST', '/ai/qa', {
            question: 'When does search v2 ship?',
            videoIds: [videoId],
          }),
        );
        if (k === 2) racing.push(call(owner, 'deletion', 'DELETE', `/videos/${videoId}?permanent=true`));
      }
      await Promise.all(racing);
    }
    expect(serverErrors()).toEqual([]);
    expect(statuses.filter(({ label }) => label === 'deletion').map(({ status }) => status)).toEqual([
      200, 200, 200,
    ]);
  }, 120_000);

  it('deletes the organization while questions and writes are in flight, each answered without a server error', async () => {
    const owner = await signUpUser(ctx().app);
    const videoIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const videoId = await createVideo(ctx().app, owner, { title: `Sync ${i}`, duration: '10:00' });
      await call(owner, 'transcript', 'PUT', `/videos/${videoId}/transcript`, transcript(i));
      videoIds.push(videoId);
    }
    statuses.length = 0;
    const inFlight: Promise<unknown>[] = [];
    for (let k = 0; k < ROUNDS; k++) {
      const videoId = videoIds[k % videoIds.length] as string;
      inFlight.push(
        call(owner, 'question', 'POST', '/ai/qa', {
          question: 'When does search v2 ship?',
          videoIds: [videoId],
        }),
        call(owner, 'transcript', 'PUT', `/videos/${videoId}/transcript`, transcript(k)),
        call(owner, 'comment', 'POST', `/videos/${videoId}/comments`, { body: `Noted ${k}`, timestamp: k }),
      );
      if (k === ROUNDS / 2)
        inFlight.push(call(owner, 'deletion', 'DELETE', `/organizations/${owner.organizationId}`));
    }
    await Promise.all(inFlight);
    expect(serverErrors()).toEqual([]);
    expect(statuses.find(({ label }) => label === 'deletion')?.status).toBe(200);
    const read = await call(owner, 'read', 'GET', `/organizations/${owner.organizationId}`);
    expect(read.statusCode).toBe(404);
  }, 120_000);
});
