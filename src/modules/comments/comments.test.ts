import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { comments, videos } from '../../db/schema/index.ts';
import { activityFor, errorBody, isoDate, pathsOf, unknownId, useCommentTestApp } from './test-support.ts';

describe('comments: posting and listing', () => {
  const { ctx, crew, newVideo, call, postComment, listComments, react } = useCommentTestApp();

  describe('POST /videos/{id}/comments', () => {
    it('creates a comment with exactly the documented fields, records it and lists it as a thread', async () => {
      const video = await newVideo();
      const response = await call(crew().member, 'POST', `/videos/${video.id}/comments`, {
        body: '  Nice intro  ',
        timestamp: 12.5,
        ignored: true,
      });
      expect(response.statusCode).toBe(201);
      const created = response.json();
      expect(created).toStrictEqual({
        id: expect.any(String),
        videoId: video.id,
        organizationId: crew().organizationId,
        parentId: null,
        author: { id: crew().member.id, name: 'Max Member', avatarUrl: null },
        body: 'Nice intro',
        timestamp: 12.5,
        mentions: [],
        reactions: [],
        isDeleted: false,
        editedAt: null,
        createdAt: isoDate,
        updatedAt: isoDate,
      });
      expect(await listComments(crew().viewer, video.id)).toStrictEqual({
        data: [{ ...created, replies: [] }],
        pagination: { page: 1, limit: 20, total: 1, totalPages: 1 },
      });
      const events = await activityFor(ctx(), 'comment.created', created.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        organizationId: crew().organizationId,
        actorId: crew().member.id,
        targetType: 'comment',
        metadata: { videoId: video.id, parentId: null, timestamp: 12.5 },
      });
    });

    it('lets a viewer comment, unanchored when timestamp is null or absent', async () => {
      const absent = await postComment(crew().viewer, { body: 'Question from a viewer' });
      expect(absent).toMatchObject({ author: { id: crew().viewer.id }, timestamp: null });
      const explicit = await postComment(crew().viewer, { timestamp: null });
      expect(explicit.timestamp).toBeNull();
    });

    it('accepts a 5000-character body and rejects 5001, empty and whitespace-only bodies', async () => {
      const longest = await postComment(crew().member, { body: 'b'.repeat(5000) });
      expect(longest.body).toHaveLength(5000);
      for (const body of ['b'.repeat(5001), '', '   \n\t ', 42]) {
        const response = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, { body });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
        expect(pathsOf(response.json())).toEqual(['body.body']);
      }
      const missing = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {});
      expect(pathsOf(missing.json())).toEqual(['body.body']);
    });

    it('requires timestamp ≥ 0 and within the known duration', async () => {
      const negative = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {
        body: 'Before the start',
        timestamp: -0.5,
      });
      expect(negative.statusCode).toBe(400);
      expect(pathsOf(negative.json())).toEqual(['body.timestamp']);
      const beyond = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {
        body: 'After the end',
        timestamp: 600.5,
      });
      expect(beyond.statusCode).toBe(400);
      expect(beyond.json()).toStrictEqual({
        ...errorBody('VALIDATION_ERROR', 'Invalid request'),
        details: [{ path: 'body.timestamp', message: "must be at most the video's duration (600 seconds)" }],
      });
      expect((await postComment(crew().member, { timestamp: 600 })).timestamp).toBe(600);
      const unknownLength = await newVideo({ duration: 'a while', durationSeconds: null });
      expect((await postComment(crew().member, { timestamp: 7200.25 }, unknownLength.id)).timestamp).toBe(
        7200.25,
      );
    });

    it('requires parentId to be a comment of the same video', async () => {
      const otherVideo = await newVideo();
      const elsewhere = await postComment(crew().member, {}, otherVideo.id);
      for (const parentId of [unknownId, elsewhere.id]) {
        const response = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {
          body: 'Reply',
          parentId,
        });
        expect(response.statusCode).toBe(400);
        expect(response.json().details).toEqual([
          { path: 'body.parentId', message: 'must be a comment of this video that is not deleted' },
        ]);
      }
      const notUuid = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {
        body: 'Reply',
        parentId: 'nope',
      });
      expect(pathsOf(notUuid.json())).toEqual(['body.parentId']);
      const both = await call(crew().member, 'POST', `/videos/${crew().videoId}/comments`, {
        body: 'Reply',
        parentId: unknownId,
        timestamp: 601,
      });
      expect(pathsOf(both.json())).toEqual(['body.parentId', 'body.timestamp']);
    });

    it('files a reply to a reply under the root of the thread', async () => {
      const video = await newVideo();
      const root = await postComment(crew().member, { body: 'Root' }, video.id);
      const reply = await postComment(crew().admin, { body: 'First reply', parentId: root.id }, video.id);
      const nested = await postComment(
        crew().viewer,
        { body: 'Reply to reply', parentId: reply.id },
        video.id,
      );
      expect(reply.parentId).toBe(root.id);
      expect(nested.parentId).toBe(root.id);
      const [stored] = await ctx().database.db.select().from(comments).where(eq(comments.id, nested.id));
      expect(stored?.parentId).toBe(root.id);
      const list = await listComments(crew().member, video.id);
      expect(list.data).toStrictEqual([{ ...root, replies: [reply, nested] }]);
      expect(list.pagination.total).toBe(1);
    });
  });

  describe('GET /videos/{id}/comments', () => {
    it('paginates over threads and sorts by createdAt, -createdAt or timestamp', async () => {
      const video = await newVideo();
      const post = async (body: string, timestamp: number | null) => {
        ctx().clock.advance(1000);
        return postComment(crew().member, { body, timestamp }, video.id);
      };
      const first = await post('first', 300);
      const second = await post('second', null);
      const third = await post('third', 5);
      const fourth = await post('fourth', 300);
      const reply = await postComment(crew().admin, { body: 'reply', parentId: first.id }, video.id);
      const thread = (comment: unknown, replies: unknown[] = []) => ({
        ...(comment as object),
        replies,
      });

      const oldestFirst = await listComments(crew().member, video.id);
      expect(oldestFirst.data).toStrictEqual([
        thread(first, [reply]),
        thread(second),
        thread(third),
        thread(fourth),
      ]);
      expect(oldestFirst.pagination).toStrictEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
      const newestFirst = await listComments(crew().member, video.id, '?sort=-createdAt');
      expect(newestFirst.data.map((c: { body: string }) => c.body)).toEqual([
        'fourth',
        'third',
        'second',
        'first',
      ]);
      const byTimestamp = await listComments(crew().member, video.id, '?sort=timestamp');
      expect(byTimestamp.data.map((c: { body: string }) => c.body)).toEqual([
        'third',
        'first',
        'fourth',
        'second',
      ]);
      const page = await listComments(crew().member, video.id, '?page=2&limit=3');
      expect(page).toStrictEqual({
        data: [thread(fourth)],
        pagination: { page: 2, limit: 3, total: 4, totalPages: 2 },
      });
      const firstPage = await listComments(crew().member, video.id, '?limit=1');
      expect(firstPage.data).toStrictEqual([thread(first, [reply])]);

      const invalid = await call(crew().member, 'GET', `/videos/${video.id}/comments?sort=body&page=0`);
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['querystring.page', 'querystring.sort']);
    });

    it('shows each caller their own reactions', async () => {
      const video = await newVideo();
      const comment = await postComment(crew().member, {}, video.id);
      await react(crew().viewer, comment.id, '👍');
      const forViewer = await listComments(crew().viewer, video.id);
      expect(forViewer.data[0].reactions).toStrictEqual([{ emoji: '👍', count: 1, reacted: true }]);
      const forMember = await listComments(crew().member, video.id);
      expect(forMember.data[0].reactions).toStrictEqual([{ emoji: '👍', count: 1, reacted: false }]);
    });
  });

  describe('access', () => {
    it('answers 401 without credentials on every route, before validation', async () => {
      const comment = await postComment(crew().member);
      const routes: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
        ['POST', `/videos/${crew().videoId}/comments`],
        ['GET', `/videos/${crew().videoId}/comments`],
        ['PATCH', `/comments/${comment.id}`],
        ['DELETE', `/comments/${comment.id}`],
        ['POST', `/comments/${comment.id}/reactions`],
      ];
      for (const [method, url] of routes) {
        const response = await call(
          null,
          method,
          url,
          method === 'GET' || method === 'DELETE' ? undefined : {},
        );
        expect(response.statusCode, `${method} ${url}`).toBe(401);
        expect(response.json()).toMatchObject(errorBody('UNAUTHORIZED'));
      }
    });

    it('hides comments from outsiders with 404 on every route, even on a public video', async () => {
      const publicVideo = await newVideo({ isPublic: true });
      const comment = await postComment(crew().member, { body: 'Members only' }, publicVideo.id);
      const outsider = crew().outsider;
      for (const videoId of [publicVideo.id, crew().videoId, unknownId]) {
        for (const method of ['GET', 'POST'] as const) {
          const response = await call(outsider, method, `/videos/${videoId}/comments`, {
            ...(method === 'POST' ? { body: 'Hi' } : {}),
          });
          expect(response.statusCode).toBe(404);
          expect(response.json()).toStrictEqual(errorBody('NOT_FOUND', 'Video not found'));
        }
      }
      for (const commentId of [comment.id, unknownId]) {
        const requests = [
          call(outsider, 'PATCH', `/comments/${commentId}`, { body: 'Hijacked' }),
          call(outsider, 'DELETE', `/comments/${commentId}`),
          call(outsider, 'POST', `/comments/${commentId}/reactions`, { emoji: '👍' }),
        ];
        for (const response of await Promise.all(requests)) {
          expect(response.statusCode).toBe(404);
          expect(response.json()).toStrictEqual(errorBody('NOT_FOUND', 'Comment not found'));
        }
      }
      expect((await call(crew().member, 'PATCH', '/comments/not-a-uuid', { body: 'x' })).statusCode).toBe(
        404,
      );
      const list = await listComments(crew().member, publicVideo.id);
      expect(list.data).toStrictEqual([{ ...comment, replies: [] }]);
    });

    it("answers 404 for a soft-deleted video's comments on every route", async () => {
      const video = await newVideo();
      const comment = await postComment(crew().member, {}, video.id);
      await ctx().database.db.update(videos).set({ isDeleted: true }).where(eq(videos.id, video.id));
      const videoRoutes = [
        call(crew().member, 'GET', `/videos/${video.id}/comments`),
        call(crew().member, 'POST', `/videos/${video.id}/comments`, { body: 'Still there?' }),
      ];
      for (const response of await Promise.all(videoRoutes)) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual(errorBody('NOT_FOUND', 'Video not found'));
      }
      const commentRoutes = [
        call(crew().member, 'PATCH', `/comments/${comment.id}`, { body: 'Edit' }),
        call(crew().owner, 'DELETE', `/comments/${comment.id}`),
        call(crew().member, 'POST', `/comments/${comment.id}/reactions`, { emoji: '👍' }),
      ];
      for (const response of await Promise.all(commentRoutes)) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual(errorBody('NOT_FOUND', 'Comment not found'));
      }
    });
  });
});
