import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { users } from '../../db/schema/index.ts';
import { truncate } from '../../lib/text.ts';
import { notify } from '../notifications/notify.ts';
import { membersAmong, renderMentions } from './mentions.ts';

const EXCERPT_MAX = 200;

type CommentFacts = {
  actorId: string;
  comment: { id: string; parentId: string | null; body: string; timestamp: number | null };
  video: { id: string; title: string; organizationId: string; authorId: string };
};

type CommentNotificationType = 'mention' | 'reply' | 'comment';

const VERBS: Record<CommentNotificationType, string> = {
  mention: 'mentioned you on',
  reply: 'replied to your comment on',
  comment: 'commented on',
};

/** Sends one kind of notification; each person is meant to be in exactly one call per comment. */
async function send(
  tx: Tx,
  context: AppContext,
  facts: CommentFacts,
  batches: Array<[CommentNotificationType, string[]]>,
) {
  const due = batches.filter(([, recipientIds]) => recipientIds.length > 0);
  if (due.length === 0) return;
  const [actor] = await tx.select({ name: users.name }).from(users).where(eq(users.id, facts.actorId));
  const { comment, video } = facts;
  for (const [type, recipientIds] of due) {
    await notify(tx, context, {
      type,
      recipientIds,
      organizationId: video.organizationId,
      actorId: facts.actorId,
      title: `${actor?.name ?? 'Someone'} ${VERBS[type]} "${video.title}"`,
      body: truncate(renderMentions(comment.body), EXCERPT_MAX),
      targetType: 'comment',
      targetId: comment.id,
      data: {
        videoId: video.id,
        commentId: comment.id,
        parentId: comment.parentId,
        timestamp: comment.timestamp,
      },
    });
  }
}

/**
 * Tells the people concerned by a new comment, once each, the most specific reason winning:
 * the members it mentions, then the author of the comment replied to, then the video's author.
 * The last two only while they are still members of the organization.
 */
export async function notifyNewComment(
  tx: Tx,
  context: AppContext,
  facts: CommentFacts,
  audience: { mentionedIds: string[]; repliedToAuthorId: string | null },
) {
  const told = new Set([facts.actorId, ...audience.mentionedIds]);
  const candidates = [audience.repliedToAuthorId, facts.video.authorId].filter(
    (id): id is string => id !== null && !told.has(id),
  );
  const members = new Set(await membersAmong(tx, facts.video.organizationId, candidates));
  const pick = (id: string | null) => {
    if (id === null || told.has(id) || !members.has(id)) return [];
    told.add(id);
    return [id];
  };
  const mentioned = audience.mentionedIds.filter((id) => id !== facts.actorId);
  const repliedTo = pick(audience.repliedToAuthorId);
  const videoAuthor = pick(facts.video.authorId);
  await send(tx, context, facts, [
    ['mention', mentioned],
    ['reply', repliedTo],
    ['comment', videoAuthor],
  ]);
}

/** After an edit: only the members mentioned now who were not before. */
export async function notifyNewMentions(
  tx: Tx,
  context: AppContext,
  facts: CommentFacts,
  mentionedIds: string[],
) {
  await send(tx, context, facts, [['mention', mentionedIds.filter((id) => id !== facts.actorId)]]);
}
