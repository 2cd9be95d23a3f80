import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { insertKnowledge } from '../../../test/helpers/knowledge.ts';
import { createChannelRow, createSeriesRow, createVideoRow } from '../../../test/helpers/library.ts';
import { collections, searchHistory, speakers } from '../../db/schema/index.ts';
import { recordSearch } from '../saved-searches/history.ts';
import { errorBody, pathsOf, unknownId, useSearchTestApp } from '../saved-searches/test-support.ts';

type Suggestion = { type: string; text: string; id: string };

describe('GET /search/suggestions', () => {
  const { ctx, crew, call } = useSearchTestApp();

  /** The ids of what the tests expect, by a short name. */
  const ids: Record<string, string> = {};

  const suggest = async (user: SignedUpUser, query: string) => {
    const response = await call(user, 'GET', `/search/suggestions?${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { data: Suggestion[] };
  };
  const texts = (body: { data: Suggestion[] }) => body.data.map((item) => `${item.type}:${item.text}`);

  beforeAll(async () => {
    const db = ctx().database.db;
    const { organizationId, member, outsider } = crew();
    const video = (title: string, values: { organizationId?: string; isDeleted?: boolean } = {}) =>
      createVideoRow(db, { organizationId, authorId: member.id, title, ...values }).then((row) => row.id);
    ids.roadmap = await video('Q3 roadmap review');
    await video('Secret roadmap draft', { isDeleted: true });
    ids.underscore = await video('a_b testing');
    await video('axb testing');
    await video('Synchronisation deep dive');
    ids.synchronisation = await video('Synchronisation deep dive');
    ids.syncChannel = (await createChannelRow(db, { organizationId, name: 'Sync' })).id;
    ids.engineering = (await createChannelRow(db, { organizationId, name: 'Engineering' })).id;
    ids.weeklySync = (await createSeriesRow(db, { organizationId, name: 'Weekly product sync' })).id;
    const [collection] = await db
      .insert(collections)
      .values({ organizationId, name: 'Async patterns' })
      .returning({ id: collections.id });
    ids.async = collection?.id as string;

    const withTranscript = await call(member, 'POST', '/videos', {
      organizationId,
      title: 'Standup',
      duration: '10:00',
      transcript: 'Alice: Hello there.\nBob: Hi.',
    });
    expect(withTranscript.statusCode, withTranscript.body).toBe(201);
    const [alice] = await db
      .select({ id: speakers.id })
      .from(speakers)
      .where(and(eq(speakers.organizationId, organizationId), eq(speakers.name, 'Alice')));
    ids.alice = alice?.id as string;

    // Another organization's things, which the team never sees.
    const foreign = { organizationId: outsider.organizationId };
    ids.foreignRoadmap = await video('Roadmap of another org', foreign);
    await createChannelRow(db, { ...foreign, name: 'English lessons' });
    await createSeriesRow(db, { ...foreign, name: 'Sync outsiders' });
    await db.insert(speakers).values({ ...foreign, name: 'Alina', normalizedName: 'alina' });

    const search = (user: SignedUpUser, query: string, organization: string | null) =>
      recordSearch(db, {
        userId: user.id,
        organizationId: organization,
        query,
        filters: {},
        resultCount: 1,
        now: new Date(),
      });
    await search(member, 'sync notes', null);
    await search(member, 'sync team only', organizationId);
    await search(crew().otherMember, 'sync secrets', null);
    const [notes] = await db
      .select({ id: searchHistory.id })
      .from(searchHistory)
      .where(and(eq(searchHistory.userId, member.id), eq(searchHistory.query, 'sync notes')));
    ids.syncNotes = notes?.id as string;
  });

  it('completes the start of a word of a title, leaving out deleted videos and other organizations', async () => {
    const body = await suggest(crew().member, 'q=roadm');
    expect(body).toStrictEqual({ data: [{ type: 'video', text: 'Q3 roadmap review', id: ids.roadmap }] });
    expect(await suggest(crew().outsider, 'q=roadm')).toStrictEqual({
      data: [{ type: 'video', text: 'Roadmap of another org', id: ids.foreignRoadmap }],
    });
    expect(await suggest(crew().member, 'q=secret')).toStrictEqual({ data: [] });
  });

  it('tolerates typos', async () => {
    const expected = { data: [{ type: 'video', text: 'Q3 roadmap review', id: ids.roadmap }] };
    expect(await suggest(crew().member, 'q=roadmpa')).toStrictEqual(expected);
    // A word similarity of 0.5: below pg_trgm's default threshold of `<%`, above ours.
    expect(await suggest(crew().member, 'q=raodmap')).toStrictEqual(expected);
  });

  it('suggests speakers and channels of the organization, in any case', async () => {
    expect(await suggest(crew().viewer, 'q=ALI')).toStrictEqual({
      data: [{ type: 'speaker', text: 'Alice', id: ids.alice }],
    });
    expect(await suggest(crew().viewer, 'q=eng')).toStrictEqual({
      data: [{ type: 'channel', text: 'Engineering', id: ids.engineering }],
    });
    expect(texts(await suggest(crew().outsider, 'q=ali'))).toEqual(['speaker:Alina']);
  });

  it('suggests topics discussed in meetings that are not deleted, of the organization only', async () => {
    const db = ctx().database.db;
    const { organizationId, member, outsider } = crew();
    const meeting = await createVideoRow(db, {
      organizationId,
      authorId: member.id,
      title: 'Quarterly call',
    });
    const { topicIds } = await insertKnowledge(db, meeting, {
      topics: [{ name: 'pricing tiers', key: 'price tier' }],
    });
    const deleted = await createVideoRow(db, {
      organizationId,
      authorId: member.id,
      title: 'Old',
      isDeleted: true,
    });
    await insertKnowledge(db, deleted, { topics: [{ name: 'prizes', key: 'prize' }] });
    const foreign = await createVideoRow(db, {
      organizationId: outsider.organizationId,
      authorId: outsider.id,
      title: 'x',
    });
    await insertKnowledge(db, foreign, { topics: [{ name: 'pricing model', key: 'price model' }] });

    expect(await suggest(member, 'q=pricing%20t')).toStrictEqual({
      data: [{ type: 'topic', text: 'pricing tiers', id: topicIds[0] }],
    });
    expect(texts(await suggest(member, 'q=pri'))).not.toContain('topic:prizes');
    expect(texts(await suggest(outsider, 'q=pricing'))).toEqual(['topic:pricing model']);
  });

  it("ranks starts of words first, then closer and shorter texts, with the caller's own searches", async () => {
    const body = await suggest(crew().member, 'q=sync');
    expect(body).toStrictEqual({
      data: [
        { type: 'channel', text: 'Sync', id: ids.syncChannel },
        { type: 'query', text: 'sync notes', id: ids.syncNotes },
        { type: 'query', text: 'sync team only', id: expect.any(String) },
        { type: 'series', text: 'Weekly product sync', id: ids.weeklySync },
        // Two videos of one title: one suggestion, the newest.
        { type: 'video', text: 'Synchronisation deep dive', id: ids.synchronisation },
        // Not the start of a word: a trigram match.
        { type: 'collection', text: 'Async patterns', id: ids.async },
      ],
    });
    expect(texts(await suggest(crew().member, 'q=sync&limit=2'))).toEqual([
      'channel:Sync',
      'query:sync notes',
    ]);
    expect(texts(await suggest(crew().otherMember, 'q=sync&limit=3'))).toEqual([
      'channel:Sync',
      'query:sync secrets',
      'series:Weekly product sync',
    ]);
  });

  it('narrows to one organization of the caller; searches over all organizations belong to each', async () => {
    const { member, organizationId } = crew();
    const inTeam = await suggest(member, `q=sync&organizationId=${organizationId}`);
    expect(texts(inTeam)).toContain('query:sync team only');
    expect(texts(inTeam)).toContain('channel:Sync');
    const personal = await suggest(member, `q=sync&organizationId=${member.organizationId.toUpperCase()}`);
    expect(personal).toStrictEqual({ data: [{ type: 'query', text: 'sync notes', id: ids.syncNotes }] });
  });

  it('takes LIKE wildcards in what was typed literally', async () => {
    expect(await suggest(crew().member, 'q=a_b')).toStrictEqual({
      data: [{ type: 'video', text: 'a_b testing', id: ids.underscore }],
    });
    expect(await suggest(crew().member, 'q=%25')).toStrictEqual({ data: [] });
    expect(await suggest(crew().member, `q=${encodeURIComponent('\\')}`)).toStrictEqual({ data: [] });
  });

  it('refuses an organization the caller is not a member of (403)', async () => {
    const foreign = await call(
      crew().outsider,
      'GET',
      `/search/suggestions?q=sync&organizationId=${crew().organizationId}`,
    );
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER', 'You are not a member of this organization'));
    const unknown = await call(
      crew().member,
      'GET',
      `/search/suggestions?q=sync&organizationId=${unknownId}`,
    );
    expect(unknown.statusCode).toBe(403);
  });

  it('lists every invalid parameter in details, and answers 401 without credentials', async () => {
    const invalid = await call(
      crew().member,
      'GET',
      '/search/suggestions?q=%20%20&limit=21&organizationId=nope',
    );
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
    expect(pathsOf(invalid.json())).toEqual([
      'querystring.limit',
      'querystring.organizationId',
      'querystring.q',
    ]);
    const missing = await call(crew().member, 'GET', '/search/suggestions?limit=0');
    expect(pathsOf(missing.json())).toEqual(['querystring.limit', 'querystring.q']);
    const tooLong = await call(crew().member, 'GET', `/search/suggestions?q=${'x'.repeat(101)}`);
    expect(pathsOf(tooLong.json())).toEqual(['querystring.q']);
    const anonymous = await call(null, 'GET', '/search/suggestions?q=sync');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
  });
});
