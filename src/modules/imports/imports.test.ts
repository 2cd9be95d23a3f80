import { count, eq } from 'drizzle-orm';
import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { importFiles, videos } from '../../db/schema/index.ts';
import { activityFor, type Team, team } from '../transcripts/test-support.ts';
import {
  type FormPart,
  filePart,
  getImport,
  importAndWait,
  importFixture,
  outcome,
  postImport,
  waitForImport,
} from './test-support.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** The acceptance batch: good files of every format, a broken SRT and a copy of the good VTT. */
const mixedBatch = (organizationId: string): FormPart[] => [
  { name: 'organizationId', value: organizationId },
  filePart('weekly-sync.vtt', importFixture('weekly-sync.vtt')),
  filePart('incident-review.srt', importFixture('incident-review.srt')),
  filePart('broken-timing.srt', importFixture('broken-timing.srt')),
  filePart('weekly-sync (copy).vtt', importFixture('weekly-sync.vtt')),
  filePart('zoom-recording.vtt', importFixture('zoom-recording.vtt')),
  filePart('google-meet.txt', importFixture('google-meet.txt')),
  filePart('segments.json', importFixture('segments.json')),
  filePart('zoom-transcript.txt', importFixture('zoom-transcript.txt')),
];

type Segment = { start: number; end: number; speaker: string | null; text: string };

describe('POST /integrations/import and GET /integrations/import/{jobId}', () => {
  const ctx = useTestApp();
  let crew: Team;
  let outsider: SignedUpUser;
  beforeAll(async () => {
    crew = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
  });

  const fetchJson = async (user: SignedUpUser, url: string) => {
    const response = await ctx().app.inject({ method: 'GET', url, headers: user.headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const segmentsOf = async (videoId: string): Promise<Segment[]> =>
    (await fetchJson(crew.member, `/videos/${videoId}/transcript`)).segments.map(
      ({ start, end, speaker, text }: Segment) => ({ start, end, speaker, text }),
    );
  const videoCount = async (organizationId: string) =>
    (
      await ctx()
        .database.db.select({ n: count() })
        .from(videos)
        .where(eq(videos.organizationId, organizationId))
    )[0]?.n;

  it('imports a mixed batch with exact per-file outcomes, and the videos carry the transcripts', async () => {
    const accepted = await postImport(ctx(), crew.member, mixedBatch(crew.organizationId));
    expect(accepted.statusCode, accepted.body).toBe(202);
    const job = accepted.json();
    expect(accepted.headers.location).toBe(`/integrations/import/${job.id}`);
    expect(job).toMatchObject({
      organizationId: crew.organizationId,
      channelId: null,
      visibility: 'private',
      status: 'queued',
      counts: { total: 8, processed: 0, created: 0, duplicates: 0, failed: 0 },
      createdAt: isoDate,
      startedAt: null,
      finishedAt: null,
    });
    expect(job.files.map((file: { status: string }) => file.status)).toEqual(Array(8).fill('pending'));

    const done = await waitForImport(ctx(), crew.member, job.id);
    expect(done).toMatchObject({
      status: 'completed',
      counts: { total: 8, processed: 8, created: 6, duplicates: 1, failed: 1 },
      startedAt: isoDate,
      finishedAt: isoDate,
    });
    const [weekly, srt, , copy, zoomVtt, meet, json, zoomTxt] = done.files;
    expect(done.files).toEqual([
      outcome('weekly-sync.vtt', 'created', { format: 'vtt' }),
      outcome('incident-review.srt', 'created', { format: 'srt' }),
      outcome('broken-timing.srt', 'failed', {
        format: 'srt',
        error: 'line 6: invalid cue end time "00:00:0x,000"',
        line: 6,
      }),
      outcome('weekly-sync (copy).vtt', 'duplicate', { videoId: weekly?.videoId }),
      outcome('zoom-recording.vtt', 'created', { format: 'vtt' }),
      outcome('google-meet.txt', 'created', { format: 'google-meet' }),
      outcome('segments.json', 'created', { format: 'json' }),
      outcome('zoom-transcript.txt', 'created', { format: 'zoom-txt' }),
    ]);
    expect(new Set(done.files.map((file) => file.videoId).filter(Boolean)).size).toBe(6);
    expect(copy?.videoId).toBe(weekly?.videoId);

    const meetVideo = await fetchJson(crew.member, `/videos/${meet?.videoId}`);
    expect(meetVideo).toMatchObject({
      title: 'Roadmap review',
      duration: '0:45',
      durationSeconds: 45,
      organizationId: crew.organizationId,
      authorId: crew.member.id,
      channelId: null,
      isPublic: false,
    });
    expect(await segmentsOf(meet?.videoId as string)).toEqual([
      { start: 0, end: 18.462, speaker: 'Grace Kim', text: "Let's go through the roadmap for next quarter." },
      { start: 18.462, end: 30, speaker: 'Omar Farouk', text: 'I have the numbers ready.' },
      { start: 30, end: 45, speaker: 'Grace Kim', text: 'Search comes first, then the mobile app.' },
    ]);
    const weeklyVideo = await fetchJson(crew.member, `/videos/${weekly?.videoId}`);
    expect(weeklyVideo).toMatchObject({ title: 'weekly-sync', duration: '0:12', durationSeconds: 12 });
    expect(weeklyVideo.transcript).toBe(importFixture('weekly-sync.vtt'));
    expect((await segmentsOf(weekly?.videoId as string)).map((segment) => segment.speaker)).toEqual([
      'Aiko Tanaka',
      'Ben Okafor',
      'Aiko Tanaka',
    ]);
    expect(await segmentsOf(srt?.videoId as string)).toEqual([
      {
        start: 0.5,
        end: 5,
        speaker: 'Dana Whitfield',
        text: 'The outage started when the cache cluster ran out of memory.',
      },
      {
        start: 5,
        end: 9.25,
        speaker: 'Eli Moreau',
        text: 'We now alert at eighty percent instead of ninety-five.',
      },
      { start: 9.25, end: 13, speaker: 'Dana Whitfield', text: 'Good. Eli owns the runbook update.' },
    ]);
    expect(await segmentsOf(zoomVtt?.videoId as string)).toEqual([
      { start: 0, end: 3.5, speaker: 'Priya Shah', text: 'Good morning, everyone.' },
      { start: 3.5, end: 8, speaker: 'Tom Becker', text: 'Morning. The migration finished overnight.' },
      { start: 8, end: 11.2, speaker: 'Priya Shah', text: 'Great, then we can close the ticket.' },
    ]);
    expect(await segmentsOf(json?.videoId as string)).toEqual([
      { start: 0, end: 4.5, speaker: 'Ana Lima', text: 'Welcome to the design critique.' },
      { start: 4.5, end: 9, speaker: 'Ben Cho', text: "I'll share the new onboarding flow." },
    ]);
    expect(await segmentsOf(zoomTxt?.videoId as string)).toEqual([
      { start: 2, end: 6, speaker: 'Priya Shah', text: 'Can everyone see my screen?' },
      {
        start: 6,
        end: 10,
        speaker: 'Tom Becker',
        text: "Yes, the dashboard is up.\nIt shows last week's numbers.",
      },
    ]);
    const speakers = await fetchJson(
      crew.member,
      `/speakers?organizationId=${crew.organizationId}&limit=100`,
    );
    expect(speakers.data.map((speaker: { name: string }) => speaker.name)).toEqual(
      expect.arrayContaining([
        'Grace Kim',
        'Omar Farouk',
        'Priya Shah',
        'Tom Becker',
        'Ana Lima',
        'Dana Whitfield',
      ]),
    );
    expect(await activityFor(ctx(), 'video.created', json?.videoId as string)).toHaveLength(1);
    const stored = await ctx()
      .database.db.select({ content: importFiles.content })
      .from(importFiles)
      .where(eq(importFiles.jobId, job.id));
    expect(stored.every((file) => file.content === null)).toBe(true);

    const before = await videoCount(crew.organizationId);
    const again = await importAndWait(ctx(), crew.admin, mixedBatch(crew.organizationId));
    expect(again.counts).toEqual({ total: 8, processed: 8, created: 0, duplicates: 7, failed: 1 });
    expect(again.files).toEqual(
      done.files.map((file) =>
        file.status === 'failed'
          ? file
          : { ...file, status: 'duplicate', format: null, videoId: file.videoId },
      ),
    );
    expect(await videoCount(crew.organizationId)).toBe(before);
  });

  it('unpacks a zip (folders fine, __MACOSX and dotfiles skipped) into a channel, as public videos', async () => {
    const channel = await ctx().app.inject({
      method: 'POST',
      url: '/channels',
      headers: crew.member.headers,
      payload: { organizationId: crew.organizationId, name: `imports-${Date.now()}` },
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const archive = zipSync({
      'minutes/whisper.json': encode(importFixture('whisper-verbose.json')),
      'minutes/standup.txt': encode('Ada: Build is green.\nGrace: Then we release today.'),
      '__MACOSX/minutes/._standup.txt': new Uint8Array([0, 5, 22, 7]),
      '.DS_Store': new Uint8Array([0, 0, 0, 1]),
      'minutes/.hidden.vtt': encode('WEBVTT'),
      // Stored rather than deflated; and `\\` separators, as some Windows tools write them.
      'minutes\\retro.txt': [encode('Ada: We shipped it.\nGrace: Late, but shipped.'), { level: 0 }],
      '__MACOSX\\minutes\\._retro.txt': new Uint8Array([0, 5, 22, 7]),
    });
    const done = await importAndWait(ctx(), crew.member, [
      { name: 'organizationId', value: crew.organizationId },
      { name: 'channelId', value: channel.json().id },
      { name: 'visibility', value: 'public' },
      { name: 'file', filename: 'minutes.zip', content: archive, type: 'application/zip' },
    ]);
    expect(done.files).toEqual([
      outcome('minutes.zip/minutes/whisper.json', 'created', { format: 'json' }),
      outcome('minutes.zip/minutes/standup.txt', 'created', { format: 'labelled' }),
      outcome('minutes.zip/minutes/retro.txt', 'created', { format: 'labelled' }),
    ]);
    for (const file of done.files) {
      const video = await fetchJson(crew.viewer, `/videos/${file.videoId}`);
      expect(video).toMatchObject({ channelId: channel.json().id, isPublic: true });
    }
    const whisper = await fetchJson(crew.member, `/videos/${done.files[0]?.videoId}`);
    expect(whisper).toMatchObject({ title: 'whisper', duration: '0:08', durationSeconds: 8 });
    expect(await fetchJson(crew.member, `/videos/${done.files[2]?.videoId}`)).toMatchObject({
      title: 'retro',
    });
    expect(await segmentsOf(done.files[0]?.videoId as string)).toEqual([
      { start: 0, end: 2.4, speaker: null, text: "Let's begin." },
      { start: 2.4, end: 7.2, speaker: null, text: 'The release is on track.' },
    ]);
  });

  it('fails files that cannot be read, saying what and where, and imports the others', async () => {
    const done = await importAndWait(ctx(), crew.member, [
      { name: 'organizationId', value: crew.organizationId },
      filePart('empty.txt', '  \n'),
      filePart('notes.docx', 'PK?'),
      filePart('latin1.txt', new Uint8Array([...encode('Ada: fine\nBob: caf'), 0xe9, 0x0a])),
      filePart('nul.txt', 'Ada: one\nBob: two\u0000three'),
      filePart(
        'surrogate.json',
        '[\n  {"start": 0, "end": 1, "text": "ok"},\n  {"start": 1, "end": 2, "text": "\\ud800"}\n]',
      ),
      filePart('header-only.vtt', 'WEBVTT\n\n'),
      filePart('bad-order.txt', '[Ada] 00:00:05\nHello.\n\n[Bob] 00:00:02\nHi.'),
      filePart('syntax.json', '[\n  {"start": 0, "end": 1, "text": "a"}\n  {"start": 1}\n]'),
      filePart('standup.txt', `Ada: ${'We ship on Friday. '.repeat(3)}\nGrace: Agreed.`),
    ]);
    expect(done.counts).toEqual({ total: 9, processed: 9, created: 1, duplicates: 0, failed: 8 });
    expect(done.files).toEqual([
      outcome('empty.txt', 'failed', { error: 'the file is empty' }),
      outcome('notes.docx', 'failed', {
        error: 'unsupported file type ".docx": send .vtt, .srt, .txt or .json files, or a .zip of them',
      }),
      outcome('latin1.txt', 'failed', { error: 'not UTF-8 text', line: 2 }),
      outcome('nul.txt', 'failed', { error: 'contains a NUL character', line: 2 }),
      outcome('surrogate.json', 'failed', {
        format: 'json',
        error: 'line 3: segment 2, text: must not contain NUL characters or unpaired surrogates',
        line: 3,
      }),
      outcome('header-only.vtt', 'failed', { format: 'vtt', error: 'no transcript text found' }),
      outcome('bad-order.txt', 'failed', {
        format: 'zoom-txt',
        error: 'line 4: the timestamp is not later than the previous turn',
        line: 4,
      }),
      outcome('syntax.json', 'failed', {
        format: 'json',
        error: expect.stringMatching(/^line 3: invalid JSON: /),
        line: 3,
      }),
      outcome('standup.txt', 'created', { format: 'labelled' }),
    ]);
  });

  it('keeps organizations apart: the same bytes are new to another organization, whose job is not visible here', async () => {
    const bytes = `${importFixture('incident-review.srt')}\n4\n00:00:13,000 --> 00:00:15,000\nEli Moreau: Apart.\n`;
    const ours = await importAndWait(ctx(), crew.member, [
      { name: 'organizationId', value: crew.organizationId },
      filePart('retro.srt', bytes),
    ]);
    const theirs = await importAndWait(ctx(), outsider, [
      { name: 'organizationId', value: outsider.organizationId },
      filePart('retro.srt', bytes),
    ]);
    expect(ours.files).toEqual([outcome('retro.srt', 'created', { format: 'srt' })]);
    expect(theirs.files).toEqual([outcome('retro.srt', 'created', { format: 'srt' })]);
    expect(theirs.files[0]?.videoId).not.toBe(ours.files[0]?.videoId);
    const [theirVideo] = await ctx()
      .database.db.select({ organizationId: videos.organizationId })
      .from(videos)
      .where(eq(videos.id, theirs.files[0]?.videoId as string));
    expect(theirVideo?.organizationId).toBe(outsider.organizationId);
    expect((await getImport(ctx(), crew.owner, theirs.id)).statusCode).toBe(404);
    expect((await getImport(ctx(), outsider, ours.id)).statusCode).toBe(404);
  });
});
