import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { commentReactions } from '../../db/schema/index.ts';
import { activityFor, errorBody, pathsOf, useCommentTestApp } from './test-support.ts';

describe('comments: reactions', () => {
  const { ctx, crew, call, postComment, listComments, react } = useCommentTestApp();

  const storedReactions = (commentId: string) =>
    ctx()
      .database.db.select({ userId: commentReactions.userId, emoji: commentReactions.emoji })
      .from(commentReactions)
      .where(eq(commentReactions.commentId, commentId));

  it('toggles the caller’s reaction on and off, recording each change', async () => {
    const comment = await postComment(crew().member);
    expect(await react(crew().viewer, comment.id, '👍')).toStrictEqual({
      commentId: comment.id,
      emoji: '👍',
      reacted: true,
      reactions: [{ emoji: '👍', count: 1, reacted: true }],
    });
    expect(await storedReactions(comment.id)).toEqual([{ userId: crew().viewer.id, emoji: '👍' }]);
    expect(await react(crew().viewer, comment.id, '👍')).toStrictEqual({
      commentId: comment.id,
      emoji: '👍',
      reacted: false,
      reactions: [],
    });
    expect(await storedReactions(comment.id)).toEqual([]);
    const [added] = await activityFor(ctx(), 'comment.reaction_added', comment.id);
    expect(added).toMatchObject({
      actorId: crew().viewer.id,
      targetType: 'comment',
      metadata: { videoId: crew().videoId, emoji: '👍' },
    });
    const [removed] = await activityFor(ctx(), 'comment.reaction_removed', comment.id);
    expect(removed).toMatchObject({
      actorId: crew().viewer.id,
      metadata: { videoId: crew().videoId, emoji: '👍' },
    });
  });

  it('counts reactions across people, in order of first use, with `reacted` for the caller', async () => {
    const comment = await postComment(crew().member);
    await react(crew().admin, comment.id, '🎉');
    ctx().clock.advance(1000);
    await react(crew().viewer, comment.id, '👍');
    ctx().clock.advance(1000);
    const result = await react(crew().member, comment.id, '🎉');
    expect(result.reactions).toStrictEqual([
      { emoji: '🎉', count: 2, reacted: true },
      { emoji: '👍', count: 1, reacted: false },
    ]);
    const seenBy = async (user: ReturnType<typeof crew>['viewer']) =>
      (await listComments(user)).data.find((thread: { id: string }) => thread.id === comment.id).reactions;
    expect(await seenBy(crew().viewer)).toStrictEqual([
      { emoji: '🎉', count: 2, reacted: false },
      { emoji: '👍', count: 1, reacted: true },
    ]);
    expect(await seenBy(crew().otherMember)).toStrictEqual([
      { emoji: '🎉', count: 2, reacted: false },
      { emoji: '👍', count: 1, reacted: false },
    ]);
    // The order follows the earliest reaction still there: 👍 now predates the remaining 🎉.
    const afterRemoval = await react(crew().admin, comment.id, '🎉');
    expect(afterRemoval.reactions).toStrictEqual([
      { emoji: '👍', count: 1, reacted: false },
      { emoji: '🎉', count: 1, reacted: false },
    ]);
  });

  it('accepts exactly one emoji grapheme and rejects anything else', async () => {
    const comment = await postComment(crew().member);
    for (const emoji of ['👍', '🎉', '👍🏽', '🇫🇷', '❤️', '👩‍👩‍👧']) {
      expect((await react(crew().member, comment.id, emoji)).reacted, emoji).toBe(true);
    }
    for (const emoji of ['a', '👍👍', '', ':+1:', ' 👍', '1', 42, null]) {
      const response = await call(crew().member, 'POST', `/comments/${comment.id}/reactions`, { emoji });
      expect(response.statusCode, String(emoji)).toBe(400);
      expect(response.json()).toMatchObject(errorBody('VALIDATION_ERROR'));
      expect(pathsOf(response.json())).toEqual(['body.emoji']);
    }
    const missing = await call(crew().member, 'POST', `/comments/${comment.id}/reactions`, {});
    expect(pathsOf(missing.json())).toEqual(['body.emoji']);
  });

  it('allows at most 20 different emoji on a comment', async () => {
    const comment = await postComment(crew().member);
    const twenty = [...'😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙🥲😚🙂'];
    expect(twenty).toHaveLength(20);
    for (const emoji of twenty) await react(crew().member, comment.id, emoji);
    const tooMany = await call(crew().viewer, 'POST', `/comments/${comment.id}/reactions`, { emoji: '🤗' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toStrictEqual(errorBody('TOO_MANY_REACTIONS'));
    expect(await storedReactions(comment.id)).toHaveLength(20);
    const existing = await react(crew().viewer, comment.id, '😀');
    expect(existing.reactions).toHaveLength(20);
    expect(existing.reactions[0]).toStrictEqual({ emoji: '😀', count: 2, reacted: true });
    expect((await react(crew().member, comment.id, '🙂')).reactions).toHaveLength(19);
    expect((await react(crew().viewer, comment.id, '🤗')).reacted).toBe(true);
  });

  it('survives concurrent toggles by the same person without an error', async () => {
    const comment = await postComment(crew().member);
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(crew().viewer, 'POST', `/comments/${comment.id}/reactions`, { emoji: '🔥' }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const reacted = responses.map((response) => response.json().reacted);
    expect(reacted.filter(Boolean)).toHaveLength(3);
    expect(await storedReactions(comment.id)).toEqual([]);
  });
});
