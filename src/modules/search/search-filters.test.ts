import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { comments } from '../../db/schema/index.ts';
import {
  createPelicanLibrary,
  DAY,
  emptyResult,
  facets,
  idSet,
  type PelicanLibrary,
  searchClient,
  sorted,
} from './fixtures/pelican-library.ts';

describe('GET /search: filters', () => {
  const ctx = useTestApp();
  const { post, search, found } = searchClient(ctx);
  let library: PelicanLibrary;
  let ids: PelicanLibrary['ids'];
  let viewer: SignedUpUser;

  beforeAll(async () => {
    library = await createPelicanLibrary(ctx);
    ({ ids } = library);
    ({ viewer } = library.t);
  });

  it('narrows to the videos of a channel, series or collection and their clips and comments', async () => {
    const filters = { channelId: ids.channel, seriesId: ids.series, collectionId: ids.collection };
    for (const [filter, id] of Object.entries(filters)) {
      const body = await found(viewer, { q: 'pelican', [filter]: id });
      expect(idSet(body), filter).toStrictEqual(sorted(ids.v1, ids.k1, ids.m1));
      expect(body.facets, filter).toStrictEqual(facets({ video: 1, clip: 1, comment: 1 }));
      expect(body.pagination.total, filter).toBe(3);
    }
    const unknownChannel = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
    expect(await found(viewer, { q: 'pelican', channelId: unknownChannel })).toStrictEqual(emptyResult);
  });

  it("narrows to one person's work: a video's author, a clip's or comment's creator", async () => {
    const { t } = library;
    const by = async (user: SignedUpUser) => idSet(await found(viewer, { q: 'pelican', authorId: user.id }));
    expect(await by(t.member)).toStrictEqual(sorted(ids.v1, ids.k1));
    expect(await by(t.otherMember)).toStrictEqual(sorted(ids.v2, ids.k2));
    expect(await by(t.viewer)).toStrictEqual([ids.m1]);
    expect(await by(t.admin)).toStrictEqual([ids.m2]);
    // Channels, series and collections count as made by whoever created them.
    expect(await by(t.owner)).toStrictEqual(sorted(ids.channel, ids.series, ids.collection));
    expect(await by(library.outsider)).toStrictEqual([]);
  });

  it('narrows by creation time, bounds included; `to` before `from` is a 400', async () => {
    const { firstCreatedAt, secondCreatedAt } = library;
    const dayAfterFirst = new Date(Date.parse(firstCreatedAt) + DAY).toISOString();
    const first = sorted(ids.channel, ids.series, ids.collection, ids.v1, ids.k1, ids.m1);

    const since = await found(viewer, { q: 'pelican', from: dayAfterFirst });
    expect(idSet(since)).toStrictEqual(sorted(ids.v2, ids.k2, ids.m2));
    expect(since.facets).toStrictEqual(facets({ video: 1, clip: 1, comment: 1 }));
    expect(idSet(await found(viewer, { q: 'pelican', to: dayAfterFirst }))).toStrictEqual(first);
    expect(idSet(await found(viewer, { q: 'pelican', from: secondCreatedAt }))).toStrictEqual(
      sorted(ids.v2, ids.k2, ids.m2),
    );
    expect(idSet(await found(viewer, { q: 'pelican', to: secondCreatedAt }))).toStrictEqual(
      sorted(...first, ids.v2),
    );
    const instant = await found(viewer, { q: 'pelican', from: secondCreatedAt, to: secondCreatedAt });
    expect(idSet(instant)).toStrictEqual([ids.v2]);

    const reversed = await search(viewer, { q: 'pelican', from: secondCreatedAt, to: firstCreatedAt });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json()).toStrictEqual({
      success: false,
      error: 'Invalid request',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'querystring.to', message: 'must not be before from' }],
    });
  });

  it('keeps, for a speaker named in any case, only videos where that speaker says the words', async () => {
    const all = await found(viewer, { q: 'heron' });
    expect(idSet(all)).toStrictEqual(sorted(ids.v1, ids.v2));
    // Unfiltered, the first video's best moment is Bob's: he says "heron" three times.
    expect(all.data.find((item) => item.id === ids.v1)?.moments?.[0]?.speaker).toBe('Bob');

    // In the second video Alice speaks, but only Bob says "heron".
    for (const speaker of ['alice', 'ALICE', ' Alice ']) {
      const body = await found(viewer, { q: 'heron', speaker });
      expect(body.data, speaker).toStrictEqual([
        expect.objectContaining({
          type: 'video',
          id: ids.v1,
          moments: [
            {
              start: 0,
              end: 10,
              speaker: 'Alice',
              snippet: 'The <mark>heron</mark> nests near the old pier.',
            },
          ],
        }),
      ]);
      expect(body.facets, speaker).toStrictEqual(facets({ video: 1 }));
    }
    const bob = await found(viewer, { q: 'heron', speaker: 'bob' });
    expect(idSet(bob)).toStrictEqual(sorted(ids.v1, ids.v2));
    const moments = bob.data.flatMap((item) => item.moments ?? []);
    expect(moments.map((moment) => moment.speaker)).toStrictEqual(['Bob', 'Bob']);

    // Only videos answer to a speaker: the clips, comments and channels that say "pelican" do not.
    expect(idSet(await found(viewer, { q: 'pelican', speaker: 'alice' }))).toStrictEqual([]);
    expect(await found(viewer, { q: 'heron', speaker: 'Zed' })).toStrictEqual(emptyResult);
  });

  it("finds a comment's words for a viewer, but never a deleted comment's", async () => {
    const { member } = library.t;
    const comment = (body: string, parentId?: string) =>
      post(member, `/videos/${ids.v1}/comments`, { body, ...(parentId ? { parentId } : {}) });
    const root = await comment('A flamingo question.');
    const reply = await post(viewer, `/videos/${ids.v1}/comments`, {
      body: 'A flamingo answer.',
      parentId: root.id,
    });
    const lone = await comment('Lone flamingo remark.');
    expect(idSet(await found(viewer, { q: 'flamingo' }))).toStrictEqual(sorted(root.id, reply.id, lone.id));

    for (const id of [root.id, lone.id]) {
      const removal = await ctx().app.inject({
        method: 'DELETE',
        url: `/comments/${id}`,
        headers: member.headers,
      });
      expect(removal.statusCode, removal.body).toBe(200);
    }
    // The root stays, as a tombstone under its reply.
    const [tombstone] = await ctx().database.db.select().from(comments).where(eq(comments.id, root.id));
    expect(tombstone?.deletedAt).toBeInstanceOf(Date);
    const body = await found(viewer, { q: 'flamingo' });
    expect(body.data.map((item) => [item.type, item.id, item.snippet])).toStrictEqual([
      ['comment', reply.id, 'A <mark>flamingo</mark> answer.'],
    ]);
    expect(body.facets).toStrictEqual(facets({ comment: 1 }));

    // Deletion empties a tombstone's body; marked deleted with its words kept, it stays hidden all the same.
    await ctx().database.db.update(comments).set({ deletedAt: new Date() }).where(eq(comments.id, reply.id));
    expect(await found(viewer, { q: 'flamingo' })).toStrictEqual(emptyResult);
  });
});
