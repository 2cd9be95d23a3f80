import { and, countDistinct, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { commentReactions } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { recordActivity } from '../activity/service.ts';
import { requireComment } from './access.ts';
import { REACTION_EMOJI_MAX } from './schemas.ts';
import { reactionsOf } from './views.ts';

/**
 * Adds the caller's reaction with this emoji, or removes it when they already have it. Toggles
 * on one comment take turns on its row lock, so a double click lands as on-then-off and the
 * distinct-emoji cap cannot be overrun by two people at once.
 */
export async function toggleReaction(context: AppContext, userId: string, commentId: string, emoji: string) {
  return context.db.transaction(async (tx) => {
    const { comment } = await requireComment(tx, userId, commentId, 'no key update');
    const mine = and(
      eq(commentReactions.commentId, commentId),
      eq(commentReactions.userId, userId),
      eq(commentReactions.emoji, emoji),
    );
    const removed = await tx
      .delete(commentReactions)
      .where(mine)
      .returning({ emoji: commentReactions.emoji });
    const reacted = removed.length === 0;
    if (reacted) {
      const [usage] = await tx
        .select({
          distinctEmoji: countDistinct(commentReactions.emoji),
          alreadyUsed: sql<boolean>`coalesce(bool_or(${commentReactions.emoji} = ${emoji}), false)`,
        })
        .from(commentReactions)
        .where(eq(commentReactions.commentId, commentId));
      if (!usage?.alreadyUsed && (usage?.distinctEmoji ?? 0) >= REACTION_EMOJI_MAX) {
        throw errors.badRequest(
          `A comment can carry at most ${REACTION_EMOJI_MAX} different emoji`,
          'TOO_MANY_REACTIONS',
        );
      }
      await tx
        .insert(commentReactions)
        .values({ commentId, userId, emoji, createdAt: context.clock.now() })
        .onConflictDoNothing();
    }
    await recordActivity(tx, {
      organizationId: comment.organizationId,
      actorId: userId,
      action: reacted ? 'comment.reaction_added' : 'comment.reaction_removed',
      targetType: 'comment',
      targetId: commentId,
      metadata: { videoId: comment.videoId, emoji },
    });
    return { commentId, emoji, reacted, reactions: await reactionsOf(tx, userId, commentId) };
  });
}
