import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { memberships, savedSearches } from '../../db/schema/index.ts';
import { activityOf, errorBody, isoDate, pathsOf, unknownId, useSearchTestApp } from './test-support.ts';

describe('saved searches', () => {
  const { ctx, crew, call } = useSearchTestApp();

  let counter = 0;
  /** Saves a search in the team's organization under a fresh name unless given. */
  async function save(user: SignedUpUser, payload: Record<string, unknown> = {}) {
    counter += 1;
    const response = await call(user, 'POST', '/search/saved', {
      organizationId: crew().organizationId,
      name: `Search ${counter}`,
      query: 'roadmap',
      ...payload,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  describe('POST /search/saved', () => {
    it('saves a search with its filters as GET /search takes them, records it and reads it back', async () => {
      const { member, organizationId } = crew();
      const channel = await call(member, 'POST', '/channels', { name: 'Roadmap', organizationId });
      const channelId: string = channel.json().id;
      const response = await call(member, 'POST', '/search/saved', {
        organizationId,
        name: '  Roadmap talks  ',
        query: ' roadmap "launch date" ',
        filters: {
          types: 'video,clip',
          channelId: channelId.toUpperCase(),
          speaker: ' Alice ',
          from: '2026-01-01T00:00:00Z',
          to: '2026-02-01T12:00:00.000+01:00',
          organizationId: unknownId,
        },
      });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body).toStrictEqual({
        id: expect.any(String),
        organizationId,
        name: 'Roadmap talks',
        query: 'roadmap "launch date"',
        filters: {
          types: ['video', 'clip'],
          channelId,
          speaker: 'Alice',
          from: '2026-01-01T00:00:00.000Z',
          to: '2026-02-01T11:00:00.000Z',
        },
        createdAt: isoDate,
        updatedAt: body.createdAt,
      });
      const [row] = await ctx().database.db.select().from(savedSearches).where(eq(savedSearches.id, body.id));
      expect(row).toMatchObject({ userId: member.id, filters: body.filters });

      const readBack = await call(member, 'GET', `/search/saved/${body.id}`);
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toStrictEqual(body);
      expect(await activityOf(ctx(), member.id, 'saved_search.created')).toEqual([
        {
          organizationId,
          targetType: 'saved_search',
          targetId: body.id,
          metadata: { name: 'Roadmap talks' },
        },
      ]);
    });

    it('lets every role save, without filters', async () => {
      const saved = await save(crew().viewer, { filters: undefined });
      expect(saved.filters).toStrictEqual({});
      expect((await save(crew().owner, { filters: {} })).filters).toStrictEqual({});
    });

    it('lists every invalid field in details', async () => {
      const invalid = await call(crew().member, 'POST', '/search/saved', {
        organizationId: 'nope',
        name: ' ',
        query: 'x'.repeat(501),
        filters: { types: 'video,podcast', channelId: 'nope', speaker: ' ' },
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(pathsOf(invalid.json())).toEqual([
        'body.filters.channelId',
        'body.filters.speaker',
        'body.filters.types.1',
        'body.name',
        'body.organizationId',
        'body.query',
      ]);
      const missing = await call(crew().member, 'POST', '/search/saved', {});
      expect(pathsOf(missing.json())).toEqual(['body.name', 'body.organizationId', 'body.query']);
      const tooLong = await call(crew().member, 'POST', '/search/saved', {
        organizationId: crew().organizationId,
        name: 'x'.repeat(101),
        query: ' ',
      });
      expect(pathsOf(tooLong.json())).toEqual(['body.name', 'body.query']);
      const backwards = await call(crew().member, 'POST', '/search/saved', {
        organizationId: crew().organizationId,
        name: 'Backwards',
        query: 'roadmap',
        filters: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z', types: [] },
      });
      expect(backwards.json().details).toEqual([
        { path: 'body.filters.types', message: 'must name at least one type' },
        { path: 'body.filters.to', message: 'must not be before from' },
      ]);
    });

    it('refuses an organization the caller is not a member of (403), and 401 without credentials', async () => {
      const payload = { organizationId: crew().organizationId, name: 'Nope', query: 'roadmap' };
      const outsider = await call(crew().outsider, 'POST', '/search/saved', payload);
      expect(outsider.statusCode).toBe(403);
      expect(outsider.json()).toEqual(errorBody('NOT_A_MEMBER', 'You are not a member of this organization'));
      const unknown = await call(crew().member, 'POST', '/search/saved', {
        ...payload,
        organizationId: unknownId,
      });
      expect(unknown.statusCode).toBe(403);
      const anonymous = await call(null, 'POST', '/search/saved', payload);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
      const rows = await ctx().database.db.select().from(savedSearches).where(eq(savedSearches.name, 'Nope'));
      expect(rows).toEqual([]);
    });

    it('keeps names unique per person and organization, in any case, even under concurrent requests', async () => {
      const { member, otherMember, organizationId } = crew();
      await save(member, { name: 'Weekly sync' });
      const taken = await call(member, 'POST', '/search/saved', {
        organizationId,
        name: ' WEEKLY SYNC ',
        query: 'other',
      });
      expect(taken.statusCode).toBe(409);
      expect(taken.json()).toEqual(
        errorBody(
          'SAVED_SEARCH_NAME_TAKEN',
          'You already have a saved search with this name in this organization',
        ),
      );
      // Another person, or another organization of the same person, may use the name.
      await save(otherMember, { name: 'Weekly sync' });
      await save(member, { name: 'Weekly sync', organizationId: member.organizationId });

      const racing = await Promise.all(
        Array.from({ length: 5 }, () =>
          call(member, 'POST', '/search/saved', { organizationId, name: 'Race', query: 'roadmap' }),
        ),
      );
      expect(racing.map((response) => response.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
    });
  });

  describe('GET /search/saved', () => {
    it("lists the caller's own saved searches newest first, in all their organizations or one", async () => {
      const { owner, admin, organizationId } = crew();
      const first = await save(admin);
      const second = await save(admin);
      const personal = await save(admin, { organizationId: admin.organizationId });
      await save(owner);

      const page1 = await call(admin, 'GET', '/search/saved?limit=2');
      expect(page1.statusCode).toBe(200);
      expect(page1.json()).toStrictEqual({
        data: [personal, second],
        pagination: { page: 1, limit: 2, total: 3, totalPages: 2 },
      });
      const page2 = await call(admin, 'GET', '/search/saved?limit=2&page=2');
      expect(page2.json().data).toStrictEqual([first]);

      const inTeam = await call(admin, 'GET', `/search/saved?organizationId=${organizationId}`);
      expect(inTeam.json()).toStrictEqual({
        data: [second, first],
        pagination: { page: 1, limit: 20, total: 2, totalPages: 1 },
      });
      const outsider = await call(crew().outsider, 'GET', '/search/saved');
      expect(outsider.json().data).toEqual([]);
    });

    it('hides saved searches of an organization the caller has left', async () => {
      const { organizationId, outsider } = crew();
      const db = ctx().database.db;
      await db.insert(memberships).values({ organizationId, userId: outsider.id, role: 'viewer' });
      const saved = await save(outsider);
      expect((await call(outsider, 'GET', '/search/saved')).json().data).toStrictEqual([saved]);
      await db
        .delete(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, outsider.id)));

      const list = await call(outsider, 'GET', '/search/saved');
      expect(list.json()).toStrictEqual({
        data: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
      });
      const one = await call(outsider, 'GET', `/search/saved/${saved.id}`);
      expect(one.statusCode).toBe(404);
      expect(one.json()).toEqual(errorBody('NOT_FOUND', 'Saved search not found'));
    });

    it('refuses an organization the caller is not in (403), invalid queries (400) and no credentials (401)', async () => {
      const foreign = await call(
        crew().outsider,
        'GET',
        `/search/saved?organizationId=${crew().organizationId}`,
      );
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json()).toEqual(errorBody('NOT_A_MEMBER'));
      const invalid = await call(crew().member, 'GET', '/search/saved?organizationId=nope&page=0&limit=101');
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual([
        'querystring.limit',
        'querystring.organizationId',
        'querystring.page',
      ]);
      expect((await call(null, 'GET', '/search/saved')).statusCode).toBe(401);
    });
  });

  describe('GET /search/saved/{id}', () => {
    it("answers 404 for anyone else's saved search, even in the same organization", async () => {
      const saved = await save(crew().member);
      for (const user of [crew().otherMember, crew().owner, crew().outsider]) {
        const response = await call(user, 'GET', `/search/saved/${saved.id}`);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Saved search not found'));
      }
      const unknown = await call(crew().member, 'GET', `/search/saved/${unknownId}`);
      expect(unknown.json()).toEqual(errorBody('NOT_FOUND', 'Saved search not found'));
      expect((await call(crew().member, 'GET', '/search/saved/not-a-uuid')).statusCode).toBe(404);
      expect((await call(null, 'GET', `/search/saved/${saved.id}`)).statusCode).toBe(401);
    });
  });
});
