import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { chatConversations, chatMessages, memberships } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import type { Citation } from '../ai/engine.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import type { ChatMessageView, ConversationView } from './schemas.ts';

/** A conversation without a given title is named after the start of its first message. */
const TITLE_FROM_MESSAGE = 60;
export const UNTITLED = 'New conversation';

/** The first words of a message, cut at a word boundary, with '…' when something was cut. */
export function titleFrom(message: string): string {
  const text = message.replace(/\s+/g, ' ').trim();
  if (text.length <= TITLE_FROM_MESSAGE) return text;
  const head = text.slice(0, TITLE_FROM_MESSAGE + 1);
  const space = head.lastIndexOf(' ');
  const cut = space > 0 ? head.slice(0, space) : head.slice(0, TITLE_FROM_MESSAGE);
  return `${cut.replace(/[\s,.;:!?-]+$/, '')}…`;
}

/**
 * Only the owner sees a conversation, and only while they belong to its organization: the join
 * with their membership hides the conversations of an organization they left.
 */
const visibleTo = (userId: string, ...conditions: Array<SQL | undefined>) =>
  and(eq(chatConversations.userId, userId), ...conditions);

const membershipJoin = and(
  eq(memberships.organizationId, chatConversations.organizationId),
  eq(memberships.userId, chatConversations.userId),
);

const conversationColumns = {
  id: chatConversations.id,
  organizationId: chatConversations.organizationId,
  title: chatConversations.title,
  messageCount:
    sql<number>`(select count(*) from ${chatMessages} where ${chatMessages.conversationId} = ${chatConversations.id})`.mapWith(
      Number,
    ),
  lastMessageAt:
    sql<Date | null>`(select max(${chatMessages.createdAt}) from ${chatMessages} where ${chatMessages.conversationId} = ${chatConversations.id})`.mapWith(
      (value: string | Date | null) => (value === null ? null : new Date(value)),
    ),
  createdAt: chatConversations.createdAt,
  updatedAt: chatConversations.updatedAt,
};

async function conversationViews(
  db: Db | Tx,
  where: SQL | undefined,
  bounds?: { limit: number; offset: number },
) {
  const query = db
    .select(conversationColumns)
    .from(chatConversations)
    .innerJoin(memberships, membershipJoin)
    .where(where)
    .orderBy(desc(chatConversations.updatedAt), desc(chatConversations.id))
    .$dynamic();
  return (bounds ? query.limit(bounds.limit).offset(bounds.offset) : query) as Promise<ConversationView[]>;
}

/** The caller's conversation, or 404 "Conversation not found" — also for everyone else's. */
export async function ownConversation(db: Db | Tx, userId: string, id: string): Promise<ConversationView> {
  const [conversation] = await conversationViews(db, visibleTo(userId, eq(chatConversations.id, id)));
  if (!conversation) throw errors.notFound('Conversation not found');
  return conversation;
}

type MessageRow = typeof chatMessages.$inferSelect;

export const messageView = (row: MessageRow): ChatMessageView => ({
  id: row.id,
  role: row.role as ChatMessageView['role'],
  content: row.content,
  answered: row.answered,
  confidence: row.confidence,
  citations: row.citations as Citation[],
  createdAt: row.createdAt,
});

/** Messages are oldest first; the two of one turn share a timestamp, and their UUIDv7 ids order them. */
const messageOrder = [asc(chatMessages.createdAt), asc(chatMessages.id)];

export async function getConversation(db: Db, userId: string, id: string) {
  const conversation = await ownConversation(db, userId, id);
  const rows = await db
    .select()
    .from(chatMessages)
    .where(eq(chatMessages.conversationId, id))
    .orderBy(...messageOrder);
  return { ...conversation, messages: rows.map(messageView) };
}

export async function listConversations(
  db: Db,
  user: AuthUser,
  query: PageRequest & { organizationId?: string | undefined },
) {
  const organizationId = query.organizationId
    ? (await resolveAiScope(db, user, { organizationId: query.organizationId }, 'querystring')).organizationId
    : undefined;
  const where = visibleTo(
    user.id,
    organizationId ? eq(chatConversations.organizationId, organizationId) : undefined,
  );
  const [data, [total]] = await Promise.all([
    conversationViews(db, where, pageBounds(query)),
    db.select({ total: count() }).from(chatConversations).innerJoin(memberships, membershipJoin).where(where),
  ]);
  return toPage(data, total?.total ?? 0, query);
}

export async function listMessages(db: Db, userId: string, id: string, page: PageRequest) {
  await ownConversation(db, userId, id);
  const where = eq(chatMessages.conversationId, id);
  const [rows, total] = await Promise.all([
    db
      .select()
      .from(chatMessages)
      .where(where)
      .orderBy(...messageOrder)
      .limit(pageBounds(page).limit)
      .offset(pageBounds(page).offset),
    db.$count(chatMessages, where),
  ]);
  return toPage(rows.map(messageView), total, page);
}

/** Inserts a conversation and records it, in the caller's transaction. */
export async function insertConversation(
  tx: Tx,
  context: AppContext,
  input: { userId: string; organizationId: string; title: string },
) {
  const now = context.clock.now();
  const [row] = await tx
    .insert(chatConversations)
    .values({ ...input, createdAt: now, updatedAt: now })
    .returning({ id: chatConversations.id });
  if (!row) throw new Error('chat_conversations insert returned nothing');
  await recordActivity(tx, {
    organizationId: input.organizationId,
    actorId: input.userId,
    action: 'chat.conversation_created',
    targetType: 'chat_conversation',
    targetId: row.id,
    metadata: { title: input.title },
  });
  return row.id;
}

/** `POST /chat/conversations` without a first message: an empty conversation. */
export async function createEmptyConversation(
  context: AppContext,
  user: AuthUser,
  input: { organizationId?: string | undefined; title?: string | undefined },
) {
  const { organizationId } = await resolveAiScope(context.db, user, { organizationId: input.organizationId });
  const id = await context.db.transaction((tx) =>
    insertConversation(tx, context, { userId: user.id, organizationId, title: input.title ?? UNTITLED }),
  );
  return getConversation(context.db, user.id, id);
}

export async function renameConversation(context: AppContext, userId: string, id: string, title: string) {
  await context.db.transaction(async (tx) => {
    const conversation = await ownConversation(tx, userId, id);
    await tx
      .update(chatConversations)
      .set({ title, updatedAt: context.clock.now() })
      .where(eq(chatConversations.id, id));
    await recordActivity(tx, {
      organizationId: conversation.organizationId,
      actorId: userId,
      action: 'chat.conversation_renamed',
      targetType: 'chat_conversation',
      targetId: id,
      metadata: { title, previousTitle: conversation.title },
    });
  });
  return ownConversation(context.db, userId, id);
}

/** Deletes the conversation and its messages; the questions stay in the organization's AI history. */
export async function deleteConversation(context: AppContext, userId: string, id: string) {
  return context.db.transaction(async (tx) => {
    const conversation = await ownConversation(tx, userId, id);
    await tx.delete(chatConversations).where(eq(chatConversations.id, id));
    await recordActivity(tx, {
      organizationId: conversation.organizationId,
      actorId: userId,
      action: 'chat.conversation_deleted',
      targetType: 'chat_conversation',
      targetId: id,
      metadata: { title: conversation.title },
    });
    return { id, deleted: true as const };
  });
}
