import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import {
  createPelicanLibrary,
  emptyResult,
  facets,
  idSet,
  type PelicanLibrary,
  searchClient,
  sorted,
} from './fixtures/pelican-library.ts';

const everyType = facets({ video: 2, clip: 2, comment: 2, channel: 1, series: 1, collection: 1 });

describe('GET /search: result types, ranking, pages and isolation', () => {
  const ctx = useTestApp();
  const { post, search, found } = searchClient(ctx);
  let library: PelicanLibrary;
  let ids: PelicanLibrary['ids'];
  let viewer: SignedUpUser;
  let member: SignedUpUser;

  const video = (fields: Record<string, unknown>) =>
    post(member, '/videos', { organizationId: library.t.organizationId, duration: '0:20', ...fields });

  beforeAll(async () => {
    library = await createPelicanLibrary(ctx);
    ({ ids } = library);
    ({ viewer, member } = library.t);
  });

  it('finds every type, each with its documented fields; only videos carry moments', async () => {
    const { firstCreatedAt, secondCreatedAt } = library;
    const body = await found(viewer, { q: 'pelican' });
    const result = (type: string, id: string, videoId: string | null, title: string, snippet: string) => ({
      type,
      id,
      videoId,
      organizationId: library.t.organizationId,
      title,
      snippet,
      score: expect.any(Number),
      createdAt: expect.any(String),
      ...(type === 'video' ? { moments: [] } : {}),
    });
    const byId = Object.fromEntries(body.data.map((item) => [item.id, item]));
    expect(byId).toStrictEqual({
      [ids.channel]: result('channel', ids.channel, null, 'Pelican channel', '<mark>Pelican</mark> channel'),
      [ids.series]: result(
        'series',
        ids.series,
        null,
        'Pelican standup',
        '<mark>Pelican</mark> standup: Weekly <mark>pelican</mark> sync.',
      ),
      [ids.collection]: result(
        'collection',
        ids.collection,
        null,
        'Pelican playlist',
        '<mark>Pelican</mark> playlist',
      ),
      [ids.v1]: result(
        'video',
        ids.v1,
        ids.v1,
        'Pelican review',
        '<mark>Pelican</mark> review: Notes on the <mark>pelican</mark> colony.',
      ),
      [ids.k1]: result('clip', ids.k1, ids.v1, 'Pelican highlight', '<mark>Pelican</mark> highlight'),
      // A comment is titled after its video.
      [ids.m1]: result('comment', ids.m1, ids.v1, 'Pelican review', 'Loved the <mark>pelican</mark> part.'),
      [ids.v2]: result(
        'video',
        ids.v2,
        ids.v2,
        'Pelican retro',
        '<mark>Pelican</mark> retro: The <mark>pelican</mark> retrospective.',
      ),
      [ids.k2]: result(
        'clip',
        ids.k2,
        ids.v2,
        'Pelican outtakes',
        '<mark>Pelican</mark> outtakes: The <mark>pelican</mark> falls over.',
      ),
      [ids.m2]: result('comment', ids.m2, ids.v2, 'Pelican retro', 'More <mark>pelican</mark> please.'),
    });
    expect(byId[ids.v1]?.createdAt).toBe(firstCreatedAt);
    expect(byId[ids.v2]?.createdAt).toBe(secondCreatedAt);
    const createdAt = (id: string) => Date.parse(byId[id]?.createdAt as string);
    for (const id of [ids.channel, ids.series, ids.collection, ids.k1, ids.m1]) {
      expect(createdAt(id)).toBeLessThan(Date.parse(secondCreatedAt));
    }
    for (const id of [ids.k2, ids.m2])
      expect(createdAt(id)).toBeGreaterThan(Date.parse(secondCreatedAt) + 60_000);

    const scores = body.data.map((item) => item.score);
    for (const score of scores) expect(score).toBeGreaterThan(0);
    expect(scores).toStrictEqual([...scores].sort((a, b) => b - a));
    expect(body.pagination).toStrictEqual({ page: 1, limit: 20, total: 9, totalPages: 1 });
    expect(body.facets).toStrictEqual(everyType);
  });

  it('marks the words in the snippet of a result matched by its title or name alone', async () => {
    const titled = await video({ title: 'Osprey update' });
    const described = await video({ title: 'Osprey sighting', description: 'Birds of prey.' });
    const clip = await post(member, `/videos/${titled.id}/clips`, {
      title: 'Osprey dive',
      description: 'A splash.',
      startTime: 0,
      endTime: 3,
    });
    const channel = await post(member, '/channels', {
      organizationId: library.t.organizationId,
      name: 'Osprey watch',
      description: 'Raptors only.',
    });
    const body = await found(member, { q: 'osprey' });
    const snippets = Object.fromEntries(body.data.map((item) => [item.id, item.snippet]));
    const marked = expect.stringContaining('<mark>Osprey</mark>');
    expect(snippets).toStrictEqual({
      [titled.id]: marked,
      [described.id]: marked,
      [clip.id]: marked,
      [channel.id]: marked,
    });
  });

  it('ranks a title match above a transcript-only match, and equal scores newest first', async () => {
    const titled = await video({ title: 'Walrus strategy' });
    ctx().clock.advance(60_000);
    const spoken = await video({
      title: 'Ocean notes',
      transcript: 'WEBVTT\n\n00:00:00.000 --> 00:00:10.000\n<v Bob>The walrus surfaced again.\n',
    });
    const walrus = await found(viewer, { q: 'walrus' });
    expect(walrus.data.map((item) => item.id)).toStrictEqual([titled.id, spoken.id]);
    expect(walrus.data[0]?.score).toBeGreaterThan(walrus.data[1]?.score as number);
    // Found by its transcript: the snippet is where the words were said.
    expect(walrus.data[1]).toMatchObject({
      snippet: 'The <mark>walrus</mark> surfaced again.',
      moments: [{ start: 0, end: 10, speaker: 'Bob', snippet: 'The <mark>walrus</mark> surfaced again.' }],
    });

    const older = await video({ title: 'Narwhal sync' });
    ctx().clock.advance(60_000);
    const newer = await video({ title: 'Narwhal sync' });
    const narwhal = await found(viewer, { q: 'narwhal' });
    expect(narwhal.data.map((item) => item.id)).toStrictEqual([newer.id, older.id]);
    expect(narwhal.data[0]?.score).toBe(narwhal.data[1]?.score);
  });

  it('opens a moment where the last word matched, stemmed or as a prefix', async () => {
    // "experiment", typed last, is a prefix and a word: stemmed, it is "experience" too.
    const call = await video({
      title: 'Quarterly call',
      transcript:
        'WEBVTT\n\n00:00:00.000 --> 00:00:10.000\n<v Lena>Thanks for making time today.\n\n' +
        '00:00:10.000 --> 00:00:20.000\n<v Maya>Smaller customers had a different experience for a while.\n',
    });
    const body = await found(viewer, { q: 'walkthrough experiment' });
    const result = body.data.find((item) => item.id === call.id);
    expect(result?.moments).toStrictEqual([
      {
        start: 10,
        end: 20,
        speaker: 'Maya',
        snippet: 'Smaller customers had a different <mark>experience</mark> for a while.',
      },
    ]);
  });

  it('ranks meetings by their best passage and by how much of the meeting says the words', async () => {
    const shore = 'harbour tide rope sail anchor gull pier dock net boat'.split(' ');
    const filler = Array.from({ length: 160 }, (_, at) => shore[at % shore.length]).join(' ');
    const meeting = (title: string, ...turns: string[]) =>
      video({
        title,
        duration: '10:00',
        transcript: `WEBVTT\n\n${turns
          .map((turn, at) => `00:0${at}:00.000 --> 00:0${at}:30.000\n<v Ann>${turn}.\n`)
          .join('\n')}`,
      });
    // The densest passage, in a long meeting that says the words nowhere else.
    const dense = await meeting(
      'Coast log',
      'The lighthouse keeper, the lighthouse keeper',
      filler,
      filler,
      filler,
      filler,
    );
    // A weaker passage, but the meeting keeps coming back to the words.
    const recurring = await meeting(
      'Shore notes',
      'The lighthouse keeper',
      filler,
      'The lighthouse keeper',
      filler,
      'The lighthouse keeper',
      filler,
    );
    const glancing = await meeting('Bay notes', 'The lighthouse', filler);
    const body = await found(viewer, { q: 'lighthouse keeper' });
    expect(body.data.map((item) => item.id)).toStrictEqual([recurring.id, dense.id, glancing.id]);
  });

  it('returns only the types asked for, comma-separated or repeated, while facets count every type', async () => {
    for (const types of ['clip,comment', ['clip', 'comment'], 'comment, clip,clip']) {
      const body = await found(viewer, { q: 'pelican', types });
      expect(idSet(body), String(types)).toStrictEqual(sorted(ids.k1, ids.k2, ids.m1, ids.m2));
      expect(body.pagination).toStrictEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
      expect(body.facets).toStrictEqual(everyType);
    }
    const places = await found(viewer, { q: 'pelican', types: 'channel,series,collection' });
    expect(idSet(places)).toStrictEqual(sorted(ids.channel, ids.series, ids.collection));
    expect(places.pagination.total).toBe(3);
  });

  it('pages through the ranked results; a page past the end is empty with the same total and facets', async () => {
    const all = await found(viewer, { q: 'pelican' });
    const second = await found(viewer, { q: 'pelican', limit: '1', page: '2' });
    expect(second).toStrictEqual({
      data: [all.data[1]],
      pagination: { page: 2, limit: 1, total: 9, totalPages: 9 },
      facets: everyType,
    });
    const pages = await Promise.all(
      [1, 2, 3].map((page) => found(viewer, { q: 'pelican', limit: '4', page: String(page) })),
    );
    expect(pages.flatMap((page) => page.data)).toStrictEqual(all.data);

    expect(await found(viewer, { q: 'pelican', limit: '4', page: '4' })).toStrictEqual({
      data: [],
      pagination: { page: 4, limit: 4, total: 9, totalPages: 3 },
      facets: everyType,
    });
    const typed = await found(viewer, { q: 'pelican', types: 'clip', page: '2' });
    expect(typed).toStrictEqual({
      data: [],
      pagination: { page: 2, limit: 20, total: 2, totalPages: 1 },
      facets: everyType,
    });
  });

  it("never shows another organization's results; 403 for its organizationId; stop words find nothing", async () => {
    const { outsider } = library;
    expect(await found(outsider, { q: 'pelican' })).toStrictEqual(emptyResult);
    expect(await found(outsider, { q: 'heron', speaker: 'alice' })).toStrictEqual(emptyResult);
    const theirs = await post(outsider, '/videos', {
      organizationId: outsider.organizationId,
      title: 'Pelican secrets',
      duration: '0:20',
    });
    expect(idSet(await found(outsider, { q: 'pelican' }))).toStrictEqual([theirs.id]);
    const ours = await found(viewer, { q: 'pelican' });
    expect(ours.data.map((item) => item.id)).not.toContain(theirs.id);
    expect(ours.facets).toStrictEqual(everyType);
    const named = await found(viewer, { q: 'pelican', organizationId: library.t.organizationId });
    expect(named).toStrictEqual(ours);

    const forbidden = await search(outsider, { q: 'pelican', organizationId: library.t.organizationId });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toStrictEqual({
      success: false,
      error: 'You are not a member of this organization',
      code: 'NOT_A_MEMBER',
    });
    expect(await found(viewer, { q: 'the and of' })).toStrictEqual(emptyResult);
  });

  it('answers 401 without credentials and 400 for malformed filters', async () => {
    const anonymous = await search(null, { q: 'pelican' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toStrictEqual({
      success: false,
      error: 'Authentication required',
      code: 'UNAUTHORIZED',
    });
    const malformed = await search(viewer, {
      q: 'pelican',
      channelId: 'not-a-uuid',
      from: 'yesterday',
      speaker: '  ',
      types: '',
    });
    expect(malformed.statusCode).toBe(400);
    expect(
      malformed
        .json()
        .details.map((detail: { path: string }) => detail.path)
        .sort(),
    ).toStrictEqual([
      'querystring.channelId',
      'querystring.from',
      'querystring.speaker',
      'querystring.types',
    ]);
  });
});
