import { and, asc, count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../../db/client.ts';
import { comments, users } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import type { CommentSort, CommentThreadView, CommentView, ReactionView } from './schemas.ts';

export const COMMENT_NOT_FOUND = 'Comment not found';

/**
 * A comments column qualified by its table: Drizzle renders bare column names, which inside a
 * subquery would resolve to the subquery's own columns (created_at, user_id…).
 */
const outer = (column: AnyPgColumn) => sql`${comments}.${sql.identifier(column.name)}`;

/** Mentioned people under their current name, in order of first appearance in the body. */
const mentionsOfComment = sql<Array<{ userId: string; name: string }>>`(
  select coalesce(json_agg(json_build_object('userId', mentioned.id, 'name', mentioned.name)
    order by strpos(lower(${outer(comments.body)}), '](' || mentioned.id::text || ')'), mentioned.id), '[]'::json)
  from comment_mentions mention
  join users mentioned on mentioned.id = mention.user_id
  where mention.comment_id = ${outer(comments.id)}
)`;

/** One entry per emoji in order of first use; `reacted` is the caller's own. */
const reactionsOfComment = (callerId: string) => sql<ReactionView[]>`(
  select coalesce(json_agg(json_build_object('emoji', per_emoji.emoji, 'count', per_emoji.total,
    'reacted', per_emoji.reacted) order by per_emoji.first_used, per_emoji.emoji), '[]'::json)
  from (
    select reaction.emoji, count(*) as total, bool_or(reaction.user_id = ${callerId}) as reacted,
      min(reaction.created_at) as first_used
    from comment_reactions reaction
    where reaction.comment_id = ${outer(comments.id)}
    group by reaction.emoji
  ) per_emoji
)`;

/** Comments with their author, mentions and reactions: one query however many rows. */
const selectComments = (db: Db | Tx, callerId: string) =>
  db
    .select({
      comment: comments,
      author: { id: users.id, name: users.name, avatarUrl: users.avatarUrl },
      mentions: mentionsOfComment,
      reactions: reactionsOfComment(callerId),
    })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.authorId))
    .$dynamic();

type CommentRow = Awaited<ReturnType<ReturnType<typeof selectComments>['execute']>>[number];

/** A tombstone keeps its place, time anchor and replies, nothing of what was said or by whom. */
function toView({ comment, author, mentions, reactions }: CommentRow): CommentView {
  const isDeleted = comment.deletedAt !== null;
  return {
    id: comment.id,
    videoId: comment.videoId,
    organizationId: comment.organizationId,
    parentId: comment.parentId,
    author: isDeleted || !author?.id ? null : author,
    body: isDeleted ? '[deleted]' : comment.body,
    timestamp: comment.timestamp,
    mentions: isDeleted ? [] : mentions,
    reactions: isDeleted ? [] : reactions,
    isDeleted,
    editedAt: comment.editedAt,
    createdAt: comment.createdAt,
    updatedAt: comment.updatedAt,
  };
}

export async function commentView(db: Db | Tx, callerId: string, commentId: string): Promise<CommentView> {
  const [row] = await selectComments(db, callerId).where(eq(comments.id, commentId));
  if (!row) throw errors.notFound(COMMENT_NOT_FOUND);
  return toView(row);
}

export async function reactionsOf(db: Db | Tx, callerId: string, commentId: string): Promise<ReactionView[]> {
  const [row] = await db
    .select({ reactions: reactionsOfComment(callerId) })
    .from(comments)
    .where(eq(comments.id, commentId));
  return row?.reactions ?? [];
}

const threadOrder: Record<CommentSort, SQL[]> = {
  createdAt: [asc(comments.createdAt), asc(comments.id)],
  '-createdAt': [desc(comments.createdAt), desc(comments.id)],
  timestamp: [sql`${comments.timestamp} asc nulls last`, asc(comments.createdAt), asc(comments.id)],
};

/**
 * A page of a video's threads, each with all its replies oldest first: three queries (the page,
 * its total, every reply of the page) whatever the number of threads.
 */
export async function threadPage(
  db: Db,
  callerId: string,
  videoId: string,
  query: PageRequest & { sort: CommentSort },
) {
  const topLevel = and(eq(comments.videoId, videoId), isNull(comments.parentId));
  const { limit, offset } = pageBounds(query);
  const [roots, [counted]] = await Promise.all([
    selectComments(db, callerId)
      .where(topLevel)
      .orderBy(...threadOrder[query.sort])
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(comments).where(topLevel),
  ]);
  const replies =
    roots.length === 0
      ? []
      : await selectComments(db, callerId)
          .where(
            inArray(
              comments.parentId,
              roots.map((root) => root.comment.id),
            ),
          )
          .orderBy(asc(comments.createdAt), asc(comments.id));
  const repliesByRoot = Map.groupBy(replies, (reply) => reply.comment.parentId);
  const threads: CommentThreadView[] = roots.map((root) => ({
    ...toView(root),
    replies: (repliesByRoot.get(root.comment.id) ?? []).map(toView),
  }));
  return toPage(threads, counted?.total ?? 0, query);
}
