import { asc, count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { searchHistory } from '../../db/schema/index.ts';
import { HISTORY_MAX, recordSearch, type SearchRecord } from './history.ts';
import { activityOf, errorBody, isoDate, pathsOf, unknownId, useSearchTestApp } from './test-support.ts';

const MINUTE = 60_000;

describe('search history', () => {
  const { ctx, call } = useSearchTestApp();

  /** A fresh user, so that each test starts from an empty history. */
  const freshUser = () => signUpUser(ctx().app, { name: 'Sam Searcher' });

  let minutes = 0;
  /** Records a search one minute after the previous one. */
  const record = (entry: Partial<SearchRecord> & { userId: string }) => {
    minutes += 1;
    return recordSearch(ctx().database.db, {
      organizationId: null,
      query: 'roadmap',
      filters: {},
      resultCount: 3,
      now: new Date(Date.UTC(2026, 0, 1) + minutes * MINUTE),
      ...entry,
    });
  };

  const rowsOf = (userId: string) =>
    ctx()
      .database.db.select()
      .from(searchHistory)
      .where(eq(searchHistory.userId, userId))
      .orderBy(asc(searchHistory.createdAt));

  describe('recordSearch', () => {
    it('adds a row per search and updates the latest one when it is repeated', async () => {
      const user = await freshUser();
      await record({ userId: user.id, query: 'roadmap', filters: { types: ['video'], speaker: 'Alice' } });
      const [first] = await rowsOf(user.id);
      // The same filters in another key order are the same search.
      await record({
        userId: user.id,
        query: 'roadmap',
        filters: { speaker: 'Alice', types: ['video'] },
        resultCount: 7,
      });
      let rows = await rowsOf(user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: first?.id, resultCount: 7 });
      expect(rows[0]?.createdAt.getTime()).toBeGreaterThan(first?.createdAt.getTime() ?? Infinity);

      await record({ userId: user.id, query: 'roadmap', filters: { types: ['clip'] } });
      await record({ userId: user.id, query: 'roadmap', organizationId: user.organizationId });
      await record({ userId: user.id, query: 'launch' });
      // Not the latest: a new entry.
      await record({ userId: user.id, query: 'roadmap', filters: { speaker: 'Alice', types: ['video'] } });
      rows = await rowsOf(user.id);
      expect(rows.map((row) => [row.query, row.organizationId, row.filters])).toEqual([
        ['roadmap', null, { types: ['video'], speaker: 'Alice' }],
        ['roadmap', null, { types: ['clip'] }],
        ['roadmap', user.organizationId, {}],
        ['launch', null, {}],
        ['roadmap', null, { types: ['video'], speaker: 'Alice' }],
      ]);
    });

    it(`keeps the latest ${HISTORY_MAX} entries of each person`, async () => {
      const user = await freshUser();
      const other = await freshUser();
      await record({ userId: other.id, query: 'kept' });
      for (let index = 1; index <= HISTORY_MAX + 3; index += 1) {
        await record({ userId: user.id, query: `query ${index}` });
      }
      const rows = await rowsOf(user.id);
      expect(rows).toHaveLength(HISTORY_MAX);
      expect(rows[0]?.query).toBe('query 4');
      expect(rows.at(-1)?.query).toBe(`query ${HISTORY_MAX + 3}`);
      expect((await rowsOf(other.id)).map((row) => row.query)).toEqual(['kept']);
    });

    it('records concurrent repeats of one search once', async () => {
      const user = await freshUser();
      const now = new Date();
      await Promise.all(
        Array.from({ length: 6 }, () =>
          recordSearch(ctx().database.db, {
            userId: user.id,
            organizationId: null,
            query: 'same',
            filters: { types: ['video'] },
            resultCount: 1,
            now,
          }),
        ),
      );
      const [counted] = await ctx()
        .database.db.select({ total: count() })
        .from(searchHistory)
        .where(eq(searchHistory.userId, user.id));
      expect(counted?.total).toBe(1);
    });
  });

  describe('GET /search/history', () => {
    it("lists the caller's own searches newest first, paginated", async () => {
      const user = await freshUser();
      const other = await freshUser();
      await record({ userId: user.id, query: 'first', resultCount: 0 });
      await record({ userId: other.id, query: 'not mine' });
      await record({
        userId: user.id,
        query: 'second',
        organizationId: user.organizationId,
        filters: { types: ['video', 'clip'], from: '2026-01-01T00:00:00.000Z' },
        resultCount: 12,
      });
      const [first, second] = await rowsOf(user.id);

      const page1 = await call(user, 'GET', '/search/history?limit=1');
      expect(page1.statusCode).toBe(200);
      expect(page1.json()).toStrictEqual({
        data: [
          {
            id: second?.id,
            query: 'second',
            filters: { types: ['video', 'clip'], from: '2026-01-01T00:00:00.000Z' },
            organizationId: user.organizationId,
            resultCount: 12,
            createdAt: second?.createdAt.toISOString(),
          },
        ],
        pagination: { page: 1, limit: 1, total: 2, totalPages: 2 },
      });
      const page2 = await call(user, 'GET', '/search/history?limit=1&page=2');
      expect(page2.json()).toStrictEqual({
        data: [
          {
            id: first?.id,
            query: 'first',
            filters: {},
            organizationId: null,
            resultCount: 0,
            createdAt: isoDate,
          },
        ],
        pagination: { page: 2, limit: 1, total: 2, totalPages: 2 },
      });

      const theirs = await call(other, 'GET', '/search/history');
      expect(theirs.json().data.map((entry: { query: string }) => entry.query)).toEqual(['not mine']);
    });

    it('answers an empty history, invalid pages and missing credentials', async () => {
      const user = await freshUser();
      const empty = await call(user, 'GET', '/search/history');
      expect(empty.json()).toStrictEqual({
        data: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
      });
      const invalid = await call(user, 'GET', '/search/history?page=0&limit=101');
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json()).toMatchObject(errorBody('VALIDATION_ERROR', 'Invalid request'));
      expect(pathsOf(invalid.json())).toEqual(['querystring.limit', 'querystring.page']);
      const anonymous = await call(null, 'GET', '/search/history');
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
    });
  });

  describe('DELETE /search/history/{id}', () => {
    it('removes one entry of the caller and records it on their account', async () => {
      const user = await freshUser();
      await record({ userId: user.id, query: 'keep' });
      await record({ userId: user.id, query: 'forget me' });
      const [kept, forgotten] = await rowsOf(user.id);
      const response = await call(user, 'DELETE', `/search/history/${forgotten?.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: forgotten?.id, deleted: true });
      expect((await rowsOf(user.id)).map((row) => row.id)).toEqual([kept?.id]);
      expect(await activityOf(ctx(), user.id, 'search_history.deleted')).toEqual([
        { organizationId: null, targetType: 'search_history', targetId: forgotten?.id, metadata: {} },
      ]);
      const again = await call(user, 'DELETE', `/search/history/${forgotten?.id}`);
      expect(again.statusCode).toBe(404);
    });

    it("answers 404 for someone else's entry, an unknown id and a malformed one, and 401 without credentials", async () => {
      const user = await freshUser();
      const other = await freshUser();
      await record({ userId: user.id, query: 'mine' });
      const [entry] = await rowsOf(user.id);
      const foreign = await call(other, 'DELETE', `/search/history/${entry?.id}`);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual(errorBody('NOT_FOUND', 'Search history entry not found'));
      expect(await rowsOf(user.id)).toHaveLength(1);
      expect(await activityOf(ctx(), other.id, 'search_history.deleted')).toEqual([]);
      const unknown = await call(user, 'DELETE', `/search/history/${unknownId}`);
      expect(unknown.json()).toEqual(errorBody('NOT_FOUND', 'Search history entry not found'));
      expect((await call(user, 'DELETE', '/search/history/not-a-uuid')).statusCode).toBe(404);
      const anonymous = await call(null, 'DELETE', `/search/history/${entry?.id}`);
      expect(anonymous.statusCode).toBe(401);
      expect(await rowsOf(user.id)).toHaveLength(1);
    });
  });

  describe('DELETE /search/history', () => {
    it("clears the caller's history only, recording it when there was something to clear", async () => {
      const user = await freshUser();
      const other = await freshUser();
      await record({ userId: user.id, query: 'one' });
      await record({ userId: user.id, query: 'two' });
      await record({ userId: other.id, query: 'theirs' });

      const cleared = await call(user, 'DELETE', '/search/history');
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json()).toStrictEqual({ deleted: 2 });
      expect(await rowsOf(user.id)).toEqual([]);
      expect(await rowsOf(other.id)).toHaveLength(1);
      expect(await activityOf(ctx(), user.id, 'search_history.cleared')).toEqual([
        { organizationId: null, targetType: 'search_history', targetId: null, metadata: { count: 2 } },
      ]);

      const again = await call(user, 'DELETE', '/search/history');
      expect(again.json()).toStrictEqual({ deleted: 0 });
      expect(await activityOf(ctx(), user.id, 'search_history.cleared')).toHaveLength(1);
    });

    it('answers 401 without credentials', async () => {
      const anonymous = await call(null, 'DELETE', '/search/history');
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toEqual(errorBody('UNAUTHORIZED', 'Authentication required'));
    });
  });
});
