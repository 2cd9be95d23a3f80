import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { retriedTransaction } from '../../db/errors.ts';
import { commentMentions, commentReactions, comments } from '../../db/schema/index.ts';
import { type ErrorDetail, errors } from '../../http/errors.ts';
import type { PageRequest } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { roleAtLeast } from '../organizations/access.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { lockComment, requireComment } from './access.ts';
import { membersAmong, mentionedUserIds } from './mentions.ts';
import { notifyNewComment, notifyNewMentions } from './notifications.ts';
import type { CommentSort, CreateCommentInput } from './schemas.ts';
import { COMMENT_NOT_FOUND, commentView, threadPage } from './views.ts';

type CommentRow = typeof comments.$inferSelect;

const NOT_AUTHOR = 'NOT_COMMENT_AUTHOR';

/**
 * The comment a new one answers, locked (shared) until commit so it cannot vanish or become a
 * tombstone under the reply; undefined when it is not a live comment of the video.
 */
async function lockRepliedTo(tx: Tx, videoId: string, parentId: string): Promise<CommentRow | undefined> {
  const [parent] = await tx.select().from(comments).where(eq(comments.id, parentId));
  if (!parent || parent.videoId !== videoId) return undefined;
  if (parent.parentId) await lockComment(tx, parent.parentId, 'share');
  const locked = await lockComment(tx, parentId, 'share');
  return locked && !locked.deletedAt ? locked : undefined;
}

export async function createComment(
  context: AppContext,
  userId: string,
  videoId: string,
  input: CreateCommentInput,
) {
  return retriedTransaction(context.db, async (tx) => {
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'contribute' });
    const timestamp = input.timestamp ?? null;
    const details: ErrorDetail[] = [];
    if (timestamp !== null && video.durationSeconds !== null && timestamp > video.durationSeconds) {
      details.push({
        path: 'body.timestamp',
        message: `must be at most the video's duration (${video.durationSeconds} seconds)`,
      });
    }
    const repliedTo = input.parentId ? await lockRepliedTo(tx, videoId, input.parentId) : undefined;
    if (input.parentId && !repliedTo) {
      details.push({ path: 'body.parentId', message: 'must be a comment of this video that is not deleted' });
    }
    if (details.length > 0) throw errors.validation(details);

    const mentionedIds = await membersAmong(tx, video.organizationId, mentionedUserIds(input.body));
    const now = context.clock.now();
    const [created] = await tx
      .insert(comments)
      .values({
        videoId,
        organizationId: video.organizationId,
        authorId: userId,
        parentId: repliedTo ? (repliedTo.parentId ?? repliedTo.id) : null,
        body: input.body,
        timestamp,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!created) throw new Error('comment insert returned nothing');
    if (mentionedIds.length > 0) {
      await tx
        .insert(commentMentions)
        .values(mentionedIds.map((id) => ({ commentId: created.id, userId: id })));
    }
    await recordActivity(tx, {
      organizationId: video.organizationId,
      actorId: userId,
      action: 'comment.created',
      targetType: 'comment',
      targetId: created.id,
      metadata: { videoId, parentId: created.parentId, timestamp },
    });
    await notifyNewComment(
      tx,
      context,
      { actorId: userId, comment: created, video },
      { mentionedIds, repliedToAuthorId: repliedTo?.authorId ?? null },
    );
    return commentView(tx, userId, created.id);
  });
}

/** The threads of a video, for members of its organization only (even when the video is public). */
export async function listVideoComments(
  db: Db,
  userId: string,
  videoId: string,
  query: PageRequest & { sort: CommentSort },
) {
  await requireVideoAccess(db, { videoId, userId, action: 'contribute' });
  return threadPage(db, userId, videoId, query);
}

/** Only the author edits; mentions follow the new body and only newly mentioned members are told. */
export async function updateComment(
  context: AppContext,
  userId: string,
  commentId: string,
  input: { body: string },
) {
  return context.db.transaction(async (tx) => {
    const { comment, video } = await requireComment(tx, userId, commentId, 'no key update');
    if (comment.authorId !== userId) throw errors.forbidden('Only the author can edit a comment', NOT_AUTHOR);
    const mentionedIds = await membersAmong(tx, video.organizationId, mentionedUserIds(input.body));
    const before = await tx
      .select({ userId: commentMentions.userId })
      .from(commentMentions)
      .where(eq(commentMentions.commentId, commentId));
    const previouslyMentioned = new Set(before.map((row) => row.userId));
    const added = mentionedIds.filter((id) => !previouslyMentioned.has(id));
    const removed = [...previouslyMentioned].filter((id) => !mentionedIds.includes(id));

    const now = context.clock.now();
    const [updated] = await tx
      .update(comments)
      .set({ body: input.body, editedAt: now, updatedAt: now })
      .where(eq(comments.id, commentId))
      .returning();
    if (!updated) throw new Error('comment update returned nothing');
    if (removed.length > 0) {
      await tx
        .delete(commentMentions)
        .where(and(eq(commentMentions.commentId, commentId), inArray(commentMentions.userId, removed)));
    }
    if (added.length > 0) {
      await tx.insert(commentMentions).values(added.map((id) => ({ commentId, userId: id })));
    }
    await recordActivity(tx, {
      organizationId: comment.organizationId,
      actorId: userId,
      action: 'comment.updated',
      targetType: 'comment',
      targetId: commentId,
      metadata: { videoId: comment.videoId },
    });
    await notifyNewMentions(tx, context, { actorId: userId, comment: updated, video }, added);
    return commentView(tx, userId, commentId);
  });
}

/**
 * The author or an admin deletes. A top-level comment with replies becomes a tombstone (its words,
 * mentions and reactions gone) so the thread stays readable; anything else is removed for good,
 * and a tombstone whose last reply goes is removed with it.
 */
export async function deleteComment(context: AppContext, userId: string, commentId: string) {
  await context.db.transaction(async (tx) => {
    const { comment, role } = await requireComment(tx, userId, commentId);
    if (comment.authorId !== userId && !(role && roleAtLeast(role, 'admin'))) {
      throw errors.forbidden('Only the author or an admin can delete a comment', NOT_AUTHOR);
    }
    if (comment.parentId) await lockComment(tx, comment.parentId, 'update');
    const locked = await lockComment(tx, commentId, 'update');
    if (!locked || locked.deletedAt) throw errors.notFound(COMMENT_NOT_FOUND);

    const [reply] = await tx
      .select({ id: comments.id })
      .from(comments)
      .where(and(eq(comments.parentId, commentId), isNull(comments.deletedAt)))
      .limit(1);
    const tombstone = reply !== undefined;
    if (tombstone) {
      const now = context.clock.now();
      await tx
        .update(comments)
        .set({ body: '', deletedAt: now, updatedAt: now })
        .where(eq(comments.id, commentId));
      await tx.delete(commentMentions).where(eq(commentMentions.commentId, commentId));
      await tx.delete(commentReactions).where(eq(commentReactions.commentId, commentId));
    } else {
      await tx.delete(comments).where(eq(comments.id, commentId));
      if (comment.parentId) await removeEmptyTombstone(tx, comment.parentId);
    }
    await recordActivity(tx, {
      organizationId: comment.organizationId,
      actorId: userId,
      action: 'comment.deleted',
      targetType: 'comment',
      targetId: commentId,
      metadata: { videoId: comment.videoId, tombstone },
    });
  });
  return { id: commentId, deleted: true as const };
}

async function removeEmptyTombstone(tx: Tx, rootId: string) {
  await tx
    .delete(comments)
    .where(
      and(
        eq(comments.id, rootId),
        isNotNull(comments.deletedAt),
        sql`not exists (select 1 from comments reply where reply.parent_id = ${rootId})`,
      ),
    );
}
