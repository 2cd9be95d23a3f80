import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { savedSearches } from '../../db/schema/index.ts';
import { activityOf, errorBody, pathsOf, unknownId, useSearchTestApp } from './test-support.ts';

const MINUTE = 60_000;

describe('saved search changes', () => {
  const { ctx, crew, call } = useSearchTestApp();

  let counter = 0;
  async function save(user: SignedUpUser, payload: Record<string, unknown> = {}) {
    counter += 1;
    const response = await call(user, 'POST', '/search/saved', {
      organizationId: crew().organizationId,
      name: `Search ${counter}`,
      query: 'roadmap',
      filters: { types: ['video'], speaker: 'Alice' },
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  const rowOf = async (id: string) =>
    (await ctx().database.db.select().from(savedSearches).where(eq(savedSearches.id, id)))[0];

  describe('PATCH /search/saved/{id}', () => {
    it('renames and changes the query, keeping the filters when none are given', async () => {
      const { member, organizationId } = crew();
      const saved = await save(member);
      ctx().clock.advance(MINUTE);
      const response = await call(member, 'PATCH', `/search/saved/${saved.id}`, {
        name: ' Alice on the roadmap ',
        query: 'roadmap launch',
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toStrictEqual({
        ...saved,
        name: 'Alice on the roadmap',
        query: 'roadmap launch',
        updatedAt: body.updatedAt,
      });
      expect(Date.parse(body.updatedAt)).toBeGreaterThan(Date.parse(saved.updatedAt));
      expect((await call(member, 'GET', `/search/saved/${saved.id}`)).json()).toStrictEqual(body);
      expect(await activityOf(ctx(), member.id, 'saved_search.updated')).toEqual([
        {
          organizationId,
          targetType: 'saved_search',
          targetId: saved.id,
          metadata: { name: 'Alice on the roadmap' },
        },
      ]);
    });

    it('replaces the filters when given', async () => {
      const saved = await save(crew().member);
      const replaced = await call(crew().member, 'PATCH', `/search/saved/${saved.id}`, {
        filters: { types: 'comment', to: '2026-03-01T00:00:00Z' },
      });
      expect(replaced.statusCode).toBe(200);
      expect(replaced.json()).toMatchObject({
        name: saved.name,
        query: saved.query,
        filters: { types: ['comment'], to: '2026-03-01T00:00:00.000Z' },
      });
      expect(Object.keys(replaced.json().filters)).toEqual(['types', 'to']);
      const cleared = await call(crew().member, 'PATCH', `/search/saved/${saved.id}`, { filters: {} });
      expect(cleared.json().filters).toStrictEqual({});
      expect((await rowOf(saved.id))?.filters).toStrictEqual({});
    });

    it('refuses a name the caller already uses in the organization, but not a new case of its own', async () => {
      const { member } = crew();
      const taken = await save(member, { name: 'Taken' });
      const saved = await save(member, { name: 'Mine' });
      const clash = await call(member, 'PATCH', `/search/saved/${saved.id}`, { name: 'TAKEN' });
      expect(clash.statusCode).toBe(409);
      expect(clash.json()).toEqual(errorBody('SAVED_SEARCH_NAME_TAKEN'));
      expect((await rowOf(saved.id))?.name).toBe('Mine');
      const recased = await call(member, 'PATCH', `/search/saved/${saved.id}`, { name: 'MINE' });
      expect(recased.statusCode).toBe(200);
      expect(recased.json().name).toBe('MINE');
      expect((await rowOf(taken.id))?.name).toBe('Taken');
    });

    it('lists every invalid field in details, and refuses an empty change', async () => {
      const saved = await save(crew().member);
      const invalid = await call(crew().member, 'PATCH', `/search/saved/${saved.id}`, {
        name: '',
        query: 'x'.repeat(501),
        filters: { authorId: 'nope', from: 'yesterday' },
      });
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual([
        'body.filters.authorId',
        'body.filters.from',
        'body.name',
        'body.query',
      ]);
      const empty = await call(crew().member, 'PATCH', `/search/saved/${saved.id}`, {});
      expect(empty.statusCode).toBe(400);
      expect(empty.json().details).toEqual([{ path: 'body', message: 'must change name, query or filters' }]);
    });

    it("answers 404 for anyone else's saved search and 401 without credentials, changing nothing", async () => {
      const saved = await save(crew().member);
      for (const user of [crew().otherMember, crew().admin, crew().outsider]) {
        const response = await call(user, 'PATCH', `/search/saved/${saved.id}`, { name: 'Hijacked' });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Saved search not found'));
      }
      const unknown = await call(crew().member, 'PATCH', `/search/saved/${unknownId}`, { name: 'X' });
      expect(unknown.statusCode).toBe(404);
      const anonymous = await call(null, 'PATCH', `/search/saved/${saved.id}`, { name: 'Hijacked' });
      expect(anonymous.statusCode).toBe(401);
      expect((await rowOf(saved.id))?.name).toBe(saved.name);
    });
  });

  describe('ids inside the filters', () => {
    it("refuses another organization's channel, series or collection and a non-member author (400), on create and on change", async () => {
      const { member, outsider, organizationId } = crew();
      const created = async (path: string, name: string) => {
        const response = await call(outsider, 'POST', path, {
          name,
          organizationId: outsider.organizationId,
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().id as string;
      };
      const foreign = {
        channelId: await created('/channels', 'Their channel'),
        seriesId: await created('/series', 'Their series'),
        collectionId: await created('/collections', 'Their folder'),
        authorId: outsider.id,
      };
      const before = await ctx().database.db.select().from(savedSearches);
      const refused = await call(member, 'POST', '/search/saved', {
        organizationId,
        name: 'Leaky',
        query: 'roadmap',
        filters: foreign,
      });
      expect(refused.statusCode).toBe(400);
      expect(pathsOf(refused.json())).toEqual([
        'body.filters.authorId',
        'body.filters.channelId',
        'body.filters.collectionId',
        'body.filters.seriesId',
      ]);
      expect(await ctx().database.db.select().from(savedSearches)).toEqual(before);

      const saved = await save(member);
      const change = await call(member, 'PATCH', `/search/saved/${saved.id}`, {
        filters: { channelId: foreign.channelId },
      });
      expect(change.statusCode).toBe(400);
      expect(change.json()).toEqual({
        ...errorBody('VALIDATION_ERROR', 'Invalid request'),
        details: [{ path: 'body.filters.channelId', message: 'is not a channel of the organization' }],
      });
      expect((await rowOf(saved.id))?.filters).toEqual({ types: ['video'], speaker: 'Alice' });
      const own = await call(member, 'PATCH', `/search/saved/${saved.id}`, {
        filters: { authorId: member.id },
      });
      expect(own.statusCode, own.body).toBe(200);
    });
  });

  describe('DELETE /search/saved/{id}', () => {
    it('deletes a saved search of the caller and records it', async () => {
      const { viewer, organizationId } = crew();
      const saved = await save(viewer, { name: 'Short-lived' });
      const response = await call(viewer, 'DELETE', `/search/saved/${saved.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: saved.id, deleted: true });
      expect(await rowOf(saved.id)).toBeUndefined();
      expect(await activityOf(ctx(), viewer.id, 'saved_search.deleted')).toEqual([
        { organizationId, targetType: 'saved_search', targetId: saved.id, metadata: { name: 'Short-lived' } },
      ]);
      expect((await call(viewer, 'GET', `/search/saved/${saved.id}`)).statusCode).toBe(404);
      // The name is free again.
      await save(viewer, { name: 'Short-lived' });
    });

    it("answers 404 for anyone else's saved search and 401 without credentials, deleting nothing", async () => {
      const saved = await save(crew().member);
      for (const user of [crew().otherMember, crew().owner, crew().outsider]) {
        const response = await call(user, 'DELETE', `/search/saved/${saved.id}`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Saved search not found'));
      }
      expect((await call(crew().member, 'DELETE', `/search/saved/${unknownId}`)).statusCode).toBe(404);
      expect((await call(crew().member, 'DELETE', '/search/saved/not-a-uuid')).statusCode).toBe(404);
      expect((await call(null, 'DELETE', `/search/saved/${saved.id}`)).statusCode).toBe(401);
      expect(await rowOf(saved.id)).toBeDefined();
    });
  });
});
