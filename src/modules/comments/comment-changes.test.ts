import { eq, inArray } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { commentMentions, commentReactions, comments } from '../../db/schema/index.ts';
import { activityFor, errorBody, isoDate, mention, pathsOf, useCommentTestApp } from './test-support.ts';

describe('comments: editing and deleting', () => {
  const { ctx, crew, newVideo, call, postComment, listComments, react } = useCommentTestApp();

  const storedComment = async (id: string) =>
    (await ctx().database.db.select().from(comments).where(eq(comments.id, id)))[0];

  describe('PATCH /comments/{id}', () => {
    it('lets the author edit, marking editedAt and updatedAt, and records it', async () => {
      const comment = await postComment(crew().member, { body: 'Frist', timestamp: 30 });
      ctx().clock.advance(60_000);
      const response = await call(crew().member, 'PATCH', `/comments/${comment.id}`, { body: ' First ' });
      expect(response.statusCode).toBe(200);
      const edited = response.json();
      expect(edited).toStrictEqual({ ...comment, body: 'First', editedAt: isoDate, updatedAt: isoDate });
      expect(edited.editedAt).toBe(edited.updatedAt);
      expect(Date.parse(edited.updatedAt)).toBeGreaterThan(Date.parse(comment.updatedAt));
      expect((await storedComment(comment.id))?.body).toBe('First');
      const events = await activityFor(ctx(), 'comment.updated', comment.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ actorId: crew().member.id, metadata: { videoId: crew().videoId } });
    });

    it('lets a viewer edit their own comment', async () => {
      const comment = await postComment(crew().viewer);
      const response = await call(crew().viewer, 'PATCH', `/comments/${comment.id}`, { body: 'Changed' });
      expect(response.statusCode).toBe(200);
      expect(response.json().body).toBe('Changed');
    });

    it('validates the body like a new comment', async () => {
      const comment = await postComment(crew().member);
      for (const payload of [{ body: 'b'.repeat(5001) }, { body: '  ' }, {}]) {
        const response = await call(crew().member, 'PATCH', `/comments/${comment.id}`, payload);
        expect(response.statusCode).toBe(400);
        expect(pathsOf(response.json())).toEqual(['body.body']);
      }
      const longest = await call(crew().member, 'PATCH', `/comments/${comment.id}`, {
        body: 'b'.repeat(5000),
      });
      expect(longest.statusCode).toBe(200);
    });

    it('refuses every other member, admins and the owner included, with 403', async () => {
      const comment = await postComment(crew().member, { body: 'Mine' });
      for (const user of [crew().otherMember, crew().admin, crew().owner, crew().viewer]) {
        const response = await call(user, 'PATCH', `/comments/${comment.id}`, { body: 'Not yours' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toStrictEqual(
          errorBody('NOT_COMMENT_AUTHOR', 'Only the author can edit a comment'),
        );
      }
      expect((await storedComment(comment.id))?.body).toBe('Mine');
    });
  });

  describe('DELETE /comments/{id}', () => {
    it('lets the author delete a comment without replies for good', async () => {
      const video = await newVideo();
      const comment = await postComment(crew().member, {}, video.id);
      const response = await call(crew().member, 'DELETE', `/comments/${comment.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toStrictEqual({ id: comment.id, deleted: true });
      expect(await storedComment(comment.id)).toBeUndefined();
      expect((await listComments(crew().member, video.id)).data).toEqual([]);
      const events = await activityFor(ctx(), 'comment.deleted', comment.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ metadata: { videoId: video.id, tombstone: false } });
      expect((await call(crew().member, 'DELETE', `/comments/${comment.id}`)).statusCode).toBe(404);
    });

    it("lets an admin or the owner delete someone else's comment, and no other member", async () => {
      const byAdmin = await postComment(crew().member);
      const byOwner = await postComment(crew().member);
      for (const user of [crew().otherMember, crew().viewer]) {
        const refused = await call(user, 'DELETE', `/comments/${byAdmin.id}`);
        expect(refused.statusCode).toBe(403);
        expect(refused.json()).toMatchObject(errorBody('NOT_COMMENT_AUTHOR'));
      }
      expect(await storedComment(byAdmin.id)).toBeDefined();
      expect((await call(crew().admin, 'DELETE', `/comments/${byAdmin.id}`)).statusCode).toBe(200);
      expect((await call(crew().owner, 'DELETE', `/comments/${byOwner.id}`)).statusCode).toBe(200);
      expect(await storedComment(byAdmin.id)).toBeUndefined();
      const [event] = await activityFor(ctx(), 'comment.deleted', byAdmin.id);
      expect(event?.actorId).toBe(crew().admin.id);
    });

    it('keeps a comment with replies as a tombstone until its last reply goes', async () => {
      const video = await newVideo();
      const root = await postComment(
        crew().member,
        { body: `Ask ${mention(crew().otherMember)}`, timestamp: 42 },
        video.id,
      );
      await react(crew().viewer, root.id, '🎉');
      const reply = await postComment(crew().otherMember, { body: 'Answer', parentId: root.id }, video.id);
      const secondReply = await postComment(crew().admin, { body: 'Thanks', parentId: root.id }, video.id);

      ctx().clock.advance(1000);
      const deleted = await call(crew().member, 'DELETE', `/comments/${root.id}`);
      expect(deleted.json()).toStrictEqual({ id: root.id, deleted: true });
      const tombstone = {
        ...root,
        author: null,
        body: '[deleted]',
        mentions: [],
        reactions: [],
        isDeleted: true,
        updatedAt: isoDate,
      };
      expect(await listComments(crew().viewer, video.id)).toStrictEqual({
        data: [{ ...tombstone, replies: [reply, secondReply] }],
        pagination: { page: 1, limit: 20, total: 1, totalPages: 1 },
      });
      const stored = await storedComment(root.id);
      expect(stored).toMatchObject({ body: '', timestamp: 42, deletedAt: expect.any(Date) });
      const db = ctx().database.db;
      expect(await db.select().from(commentMentions).where(eq(commentMentions.commentId, root.id))).toEqual(
        [],
      );
      expect(await db.select().from(commentReactions).where(eq(commentReactions.commentId, root.id))).toEqual(
        [],
      );
      const [event] = await activityFor(ctx(), 'comment.deleted', root.id);
      expect(event?.metadata).toStrictEqual({ videoId: video.id, tombstone: true });

      const gone = errorBody('NOT_FOUND', 'Comment not found');
      for (const response of [
        await call(crew().member, 'DELETE', `/comments/${root.id}`),
        await call(crew().owner, 'DELETE', `/comments/${root.id}`),
        await call(crew().member, 'PATCH', `/comments/${root.id}`, { body: 'Back' }),
        await call(crew().member, 'POST', `/comments/${root.id}/reactions`, { emoji: '👍' }),
      ]) {
        expect(response.statusCode).toBe(404);
        expect(response.json()).toStrictEqual(gone);
      }
      const replyToTombstone = await call(crew().member, 'POST', `/videos/${video.id}/comments`, {
        body: 'Hello?',
        parentId: root.id,
      });
      expect(replyToTombstone.statusCode).toBe(400);
      expect(pathsOf(replyToTombstone.json())).toEqual(['body.parentId']);

      expect((await call(crew().otherMember, 'DELETE', `/comments/${reply.id}`)).statusCode).toBe(200);
      const [left] = (await listComments(crew().member, video.id)).data;
      expect(left).toStrictEqual({ ...tombstone, replies: [secondReply] });
      expect((await call(crew().admin, 'DELETE', `/comments/${secondReply.id}`)).statusCode).toBe(200);
      expect(await listComments(crew().member, video.id)).toStrictEqual({
        data: [],
        pagination: { page: 1, limit: 20, total: 0, totalPages: 0 },
      });
      expect(
        await db
          .select()
          .from(comments)
          .where(inArray(comments.id, [root.id, secondReply.id])),
      ).toEqual([]);
    });

    it('keeps a live thread when one of its replies is deleted', async () => {
      const video = await newVideo();
      const root = await postComment(crew().member, {}, video.id);
      const reply = await postComment(crew().viewer, { body: 'Agreed', parentId: root.id }, video.id);
      const deleted = await call(crew().viewer, 'DELETE', `/comments/${reply.id}`);
      expect(deleted.json()).toStrictEqual({ id: reply.id, deleted: true });
      expect((await listComments(crew().member, video.id)).data).toStrictEqual([{ ...root, replies: [] }]);
      const [event] = await activityFor(ctx(), 'comment.deleted', reply.id);
      expect(event?.metadata).toStrictEqual({ videoId: video.id, tombstone: false });
    });
  });
});
