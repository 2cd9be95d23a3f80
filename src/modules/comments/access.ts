import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { comments } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { COMMENT_NOT_FOUND } from './views.ts';

type LockStrength = 'update' | 'no key update' | 'share';

/**
 * A comment row locked until commit. Lock order, so that concurrent replies, reactions and
 * deletions cannot deadlock: a thread's root before any of its replies.
 */
export async function lockComment(tx: Tx, commentId: string, strength: LockStrength) {
  const [row] = await tx.select().from(comments).where(eq(comments.id, commentId)).for(strength);
  return row;
}

/**
 * A live comment (not a tombstone) of a video the caller may contribute to, with that video and
 * the caller's role. Anything else, including a comment of another organization's video or of a
 * deleted video, is the same 404.
 */
export async function requireComment(tx: Tx, userId: string, commentId: string, lock?: LockStrength) {
  const comment = lock
    ? await lockComment(tx, commentId, lock)
    : (await tx.select().from(comments).where(eq(comments.id, commentId)))[0];
  if (!comment || comment.deletedAt) throw errors.notFound(COMMENT_NOT_FOUND);
  try {
    const { video, role } = await requireVideoAccess(tx, {
      videoId: comment.videoId,
      userId,
      action: 'contribute',
    });
    return { comment, video, role };
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) throw errors.notFound(COMMENT_NOT_FOUND);
    throw error;
  }
}
