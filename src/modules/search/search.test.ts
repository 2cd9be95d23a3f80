import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { isoDate } from '../../../test/helpers/assertions.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { videos } from '../../db/schema/index.ts';
import { type Team, team } from '../transcripts/test-support.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('GET /search', () => {
  const ctx = useTestApp();
  let t: Team;
  let outsider: SignedUpUser;
  let roadmapId: string;

  const post = async (user: SignedUpUser, url: string, payload: Record<string, unknown>) => {
    const response = await ctx().app.inject({ method: 'POST', url, headers: user.headers, payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const search = (user: SignedUpUser | null, query: Record<string, string>) =>
    ctx().app.inject({
      method: 'GET',
      url: `/search?${new URLSearchParams(query)}`,
      headers: user ? user.headers : {},
    });
  const found = async (user: SignedUpUser, q: string, extra: Record<string, string> = {}) => {
    const response = await search(user, { q, ...extra });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const ids = (body: { data: Array<{ id: string }> }) => body.data.map((result) => result.id);
  /** A meeting of the user's organization whose transcript opens with Ann saying `words`; its id. */
  const meetingOf = async (user: SignedUpUser, title: string, words: string) =>
    (
      await post(user, '/videos', {
        organizationId: user.organizationId,
        title,
        duration: '0:30',
        transcript: `[00:00:01] Ann: ${words}`,
      })
    ).id as string;

  /** A meeting of the team's organization saying `turns` (`[mm:ss] Speaker: words`), and a
   * function reading the moments a viewer's search shows in it. */
  const teamMeeting = async (title: string, duration: string, turns: string[]) => {
    const { id } = await post(t.member, '/videos', {
      organizationId: t.organizationId,
      title,
      duration,
      transcript: turns.join('\n'),
    });
    return async (q: string) =>
      ((await found(t.viewer, q)).data.find((result: { id: string }) => result.id === id)?.moments ??
        []) as Array<{ start: number; speaker: string | null }>;
  };

  beforeAll(async () => {
    t = await team(ctx());
    outsider = await signUpUser(ctx().app, { name: 'Otto Outsider' });
    const roadmap = await post(t.member, '/videos', {
      organizationId: t.organizationId,
      title: 'Quarterly roadmap review',
      description: 'Platform team planning.',
      duration: '1:05',
      transcript: fixture('roadmap-review.vtt'),
    });
    roadmapId = roadmap.id;
    // The same words elsewhere: another organization, and a deleted video.
    await post(outsider, '/videos', {
      organizationId: outsider.organizationId,
      title: 'Outsider roadmap',
      duration: '1:05',
      transcript: fixture('roadmap-review.vtt'),
    });
    const deleted = await post(t.member, '/videos', {
      organizationId: t.organizationId,
      title: 'Old roadmap (deleted)',
      duration: '1:05',
      transcript: fixture('roadmap-review.vtt'),
    });
    const removal = await ctx().app.inject({
      method: 'DELETE',
      url: `/videos/${deleted.id}`,
      headers: t.member.headers,
    });
    expect(removal.statusCode).toBe(200);
  });

  it('finds a phrase spoken in a meeting, with a moment inside the right segment and the words marked', async () => {
    const body = await found(t.viewer, '"launch date"');
    expect(body.data).toHaveLength(1);
    const [result] = body.data;
    expect(result).toStrictEqual({
      type: 'video',
      id: roadmapId,
      videoId: roadmapId,
      organizationId: t.organizationId,
      title: 'Quarterly roadmap review',
      snippet: expect.stringContaining('<mark>launch</mark> <mark>date</mark>'),
      score: expect.any(Number),
      createdAt: isoDate,
      moments: [
        {
          start: 19.5,
          end: 31,
          speaker: 'Alice',
          snippet: expect.stringContaining('<mark>launch</mark> <mark>date</mark>'),
        },
      ],
    });
    expect(body.pagination).toStrictEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(body.facets).toStrictEqual({
      types: { video: 1, clip: 0, comment: 0, channel: 0, series: 0, collection: 0 },
    });
  });

  it('opens a moment for words where they are said, and for a question at the turn after the one raising it', async () => {
    const momentsOf = await teamMeeting('Wildlife cameras', '0:40', [
      '[00:00:00] Ann: Next, the heron camera.',
      '[00:00:10] Bob: The heron camera broke in the storm, so we ordered another one.',
      '[00:00:20] Ann: Fine.',
    ]);
    expect(await momentsOf('heron camera')).toMatchObject([{ start: 0, speaker: 'Ann' }]);
    expect(await momentsOf('What happened to the heron camera?')).toMatchObject([
      { start: 10, speaker: 'Bob' },
    ]);
  });

  it('opens a moment of a "why" question where the cause is given, as QA\'s retrieval reads it', async () => {
    const momentsOf = await teamMeeting('Wildlife cameras, again', '1:30', [
      '[00:00:00] Ann: The heron camera is offline again.',
      '[00:00:10] Bob: I went out to the heron camera on Monday.',
      '[00:00:20] Cy: Did you bring the spare lens?',
      '[00:00:30] Bob: Yes, and the spare cable.',
      '[00:00:40] Cy: Good, the old cable was worn.',
      '[00:00:50] Dee: The budget for new cables is fine.',
      '[00:01:00] Bob: The root cause was water in the housing.',
      '[00:01:10] Ann: Then we seal the housing.',
    ]);
    // "Root cause" says no word of the question; the question's kind adds it (question-terms.ts).
    expect((await momentsOf('Why is the heron camera offline?')).map((moment) => moment.start)).toContain(60);
    expect((await momentsOf('heron camera offline')).map((moment) => moment.start)).not.toContain(60);
  });

  it('matches stemmed words and prefixes of the last word', async () => {
    // "run" finds "running" (stemmed); "organi" finds "organization" (prefix); "roadm" finds "roadmap".
    for (const q of ['run', 'organi', 'roadm', 'settings organi']) {
      expect(ids(await found(t.member, q)), q).toEqual([roadmapId]);
    }
    const moment = (await found(t.member, 'running late')).data[0].moments[0];
    expect(moment).toMatchObject({ start: 8, end: 19.5, speaker: 'Bob' });
  });

  it('reads typographic punctuation as punctuation, in transcripts and in queries', async () => {
    const reader = await signUpUser(ctx().app, { name: 'Tia Typist' });
    const said = await meetingOf(
      reader,
      'Sync one',
      'Northwind’s “single sign-on” deadline—the end of March… then SCIM.',
    );
    // Each word is found by itself, and a query typed with a curly apostrophe finds the word.
    for (const q of [
      'Northwind',
      'single',
      'deadline',
      'March',
      'SCIM',
      'Northwind’s deadline',
      '“sign-on”',
    ]) {
      const body = await found(reader, q);
      expect(ids(body), q).toEqual([said]);
      expect(body.data[0].moments[0].snippet, q).toMatch(/<mark>/);
    }
  });

  it('honours exclusions, OR and required words; an exclusion applies to each matched title or passage', async () => {
    // The title still says "roadmap" without "battery"; the passage that says both is left out.
    const excluded = await found(t.member, 'roadmap -battery');
    expect(ids(excluded)).toEqual([roadmapId]);
    expect(excluded.data[0].moments).toEqual([]);
    expect(ids(await found(t.member, 'battery -"launch date"'))).toEqual([]);
    expect(ids(await found(t.member, 'zebra OR battery'))).toEqual([roadmapId]);
    // Best-match: any word finds; `+word` and phrases must be there.
    expect(ids(await found(t.member, 'zebra battery'))).toEqual([roadmapId]);
    expect(ids(await found(t.member, '+zebra battery'))).toEqual([]);
    expect(ids(await found(t.member, '"zebra battery"'))).toEqual([]);
    // Nothing asked for but exclusions: nothing found (rather than everything without the word).
    expect(await found(t.member, '-zebra')).toMatchObject({ data: [], pagination: { total: 0 } });
  });

  it("never shows another organization's content or soft-deleted videos, in results or facets", async () => {
    const mine = await found(t.member, 'roadmap');
    expect(ids(mine)).toEqual([roadmapId]);
    expect(mine.facets.types.video).toBe(1);
    const theirs = await found(outsider, 'roadmap');
    expect(theirs.data.map((result: { title: string }) => result.title)).toEqual(['Outsider roadmap']);
    const forbidden = await search(outsider, { q: 'roadmap', organizationId: t.organizationId });
    expect(forbidden.statusCode).toBe(403);
  });

  it('escapes HTML from the source before marking matches', async () => {
    const video = await post(t.member, '/videos', {
      organizationId: t.organizationId,
      title: 'Security <b>review</b>',
      duration: '0:20',
      transcript:
        'WEBVTT\n\n00:00:00.000 --> 00:00:10.000\n<v Eve>The xylophone <script>alert("x")</script> & <img src=x onerror=alert(1)> xylophone.\n',
    });
    const body = await found(t.member, 'xylophone');
    expect(ids(body)).toEqual([video.id]);
    const snippet: string = body.data[0].moments[0].snippet;
    expect(snippet).not.toMatch(/<(?!\/?mark>)/);
    expect(snippet).toContain('<mark>xylophone</mark>');
    const titleHit = await found(t.member, 'security review');
    expect(titleHit.data[0].snippet).not.toMatch(/<(?!\/?mark>)/);
  });

  it("records each search in the caller's history, with its filters and result count", async () => {
    const searcher = await signUpUser(ctx().app, { name: 'Hana History' });
    await found(searcher, 'quarterly', { types: 'video,clip' });
    // Recorded after the answer is sent: wait for it.
    const history = async () =>
      (await ctx().app.inject({ method: 'GET', url: '/search/history', headers: searcher.headers })).json()
        .data;
    await expect.poll(history).toHaveLength(1);
    expect(await history()).toStrictEqual([
      {
        id: expect.any(String),
        query: 'quarterly',
        filters: { types: ['video', 'clip'] },
        organizationId: null,
        resultCount: 0,
        createdAt: isoDate,
      },
    ]);
  });

  it('answers 401 without credentials and 400 for an empty query or an unknown type', async () => {
    expect((await search(null, { q: 'roadmap' })).statusCode).toBe(401);
    const empty = await search(t.member, { q: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details.map((d: { path: string }) => d.path)).toEqual(['querystring.q']);
    const badType = await search(t.member, { q: 'roadmap', types: 'video,podcast' });
    expect(badType.statusCode).toBe(400);
  });

  it('follows every write: an update, a deletion and a restore change the results at once', async () => {
    const video = await post(t.member, '/videos', {
      organizationId: t.organizationId,
      title: 'Gazpacho tasting',
      duration: '0:30',
    });
    expect(ids(await found(t.member, 'gazpacho'))).toEqual([video.id]);
    const patch = await ctx().app.inject({
      method: 'PATCH',
      url: `/videos/${video.id}`,
      headers: t.member.headers,
      payload: { title: 'Soup tasting' },
    });
    expect(patch.statusCode).toBe(200);
    expect(ids(await found(t.member, 'gazpacho'))).toEqual([]);
    expect(ids(await found(t.member, 'soup'))).toEqual([video.id]);
    await ctx().app.inject({ method: 'DELETE', url: `/videos/${video.id}`, headers: t.member.headers });
    expect(ids(await found(t.member, 'soup'))).toEqual([]);
    await ctx().app.inject({
      method: 'POST',
      url: `/videos/${video.id}/restore`,
      headers: t.member.headers,
    });
    expect(ids(await found(t.member, 'soup'))).toEqual([video.id]);
    const [row] = await ctx()
      .database.db.select({ id: videos.id })
      .from(videos)
      .where(eq(videos.id, video.id));
    expect(row?.id).toBe(video.id);
  });

  it('ranks first the video holding more of the rarer words, and finds one holding any of them', async () => {
    const reader = await signUpUser(ctx().app, { name: 'Rita Reader' });
    const video = (title: string, words: string) =>
      meetingOf(reader, title, `${words}\n[00:00:10] Bob: Thanks, that is noted for the meeting.`);
    const common = await video('Sync one', 'We talked about the meeting agenda and the meeting notes.');
    const one = await video('Sync two', 'The osprey nest needs a camera before the meeting.');
    const both = await video('Sync three', 'The osprey and the kestrel both need a camera.');
    const body = await found(reader, 'osprey kestrel meeting');
    expect(ids(body)).toEqual([both, one, common]);
    // A word nobody said narrows nothing unless it is required.
    expect(ids(await found(reader, 'kestrel zeppelin'))).toEqual([both]);
    expect(ids(await found(reader, '+zeppelin kestrel'))).toEqual([]);
  });

  it('reads a question: the words that frame it ("discuss", "think") weigh less than what it is about', async () => {
    const reader = await signUpUser(ctx().app, { name: 'Quinn Questioner' });
    const video = (title: string, words: string) => meetingOf(reader, title, words);
    const talk = await video('Sync one', 'We discussed it, discussed it again, and the discussion ran long.');
    const heron = await video('Sync two', 'The heron nest by the lake needs a camera.');
    expect(ids(await found(reader, 'What did we discuss about the heron?'))).toEqual([heron, talk]);
  });

  it('when every word is common, looks in the meetings likeliest to be about them: one long meeting crowds out no other', async () => {
    const reader = await signUpUser(ctx().app, { name: 'Cora Common' });
    // 320 turns of 160 words, each its own passage, every one saying both words: far past the
    // 300 candidates a search scores, and each word in every passage (common).
    const filler = Array.from({ length: 155 }, (_, at) => `word${at % 50}`).join(' ');
    const turns = Array.from(
      { length: 320 },
      (_, at) =>
        `[${new Date(at * 10_000).toISOString().slice(11, 19)}] Ann: The osprey and the kestrel nest. ${filler}`,
    );
    const crowd = await post(reader, '/videos', {
      organizationId: reader.organizationId,
      title: 'Bird survey archive',
      duration: '1:00:00',
      transcript: turns.join('\n'),
    });
    const live = await meetingOf(reader, 'Bird survey', 'The osprey and the kestrel share the cliff.');
    const [{ passages }] = (
      await ctx().database.pool.query(
        'select count(*)::int as passages from transcript_chunks where video_id = $1',
        [crowd.id],
      )
    ).rows;
    expect(passages).toBeGreaterThanOrEqual(300);
    // The short meeting says the words at a higher rate than the long one's 320 passages.
    expect(ids(await found(reader, 'osprey kestrel')).sort()).toEqual([crowd.id, live].sort());
    await ctx().app.inject({ method: 'DELETE', url: `/videos/${crowd.id}`, headers: reader.headers });
    expect(ids(await found(reader, 'osprey kestrel'))).toEqual([live]);
  });
});
