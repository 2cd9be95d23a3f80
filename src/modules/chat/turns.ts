import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import { chatConversations, chatMessages } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { creditsFor, requireCredits } from '../ai/budget.ts';
import type { AnswerEngine } from '../ai/engine.ts';
import { answerQuestion, keepQuestion } from '../ai/qa.ts';
import { resolveAiScope } from '../ai/scope.ts';
import type { AuthUser } from '../auth/sessions.ts';
import type { AiChatInput, ChatTurnView } from './schemas.ts';
import { insertConversation, messageView, ownConversation, titleFrom } from './service.ts';

/** Earlier questions of a conversation that join a follow-up's retrieval. */
const EARLIER_TURNS = 2;

type ScopeInput = Omit<AiChatInput, 'message' | 'conversationId'>;

/** A turn that passed every check (conversation, scope, credits) and is ready to be answered. */
export type PendingTurn = {
  user: AuthUser;
  /** Null: the conversation is created with the turn, so that a failed answer leaves nothing behind. */
  conversationId: string | null;
  title: string;
  content: string;
  scope: Awaited<ReturnType<typeof resolveAiScope>>;
  earlier: string[];
};

/**
 * Everything that can refuse a turn, before any answering: errors here are ordinary JSON errors,
 * also for event-stream clients.
 */
export async function prepareTurn(
  context: AppContext,
  user: AuthUser,
  input: {
    conversationId?: string | undefined;
    title?: string | undefined;
    content: string;
    scope: ScopeInput;
  },
): Promise<PendingTurn> {
  const { db } = context;
  let conversationId: string | null = null;
  let earlier: string[] = [];
  let scopeInput = input.scope;
  let title = input.title ?? titleFrom(input.content);
  if (input.conversationId) {
    const conversation = await ownConversation(db, user.id, input.conversationId);
    if (scopeInput.organizationId && scopeInput.organizationId !== conversation.organizationId) {
      throw errors.validation([
        { path: 'body.organizationId', message: "is not the conversation's organization" },
      ]);
    }
    conversationId = conversation.id;
    title = conversation.title;
    scopeInput = { ...scopeInput, organizationId: conversation.organizationId };
    const previous = await db
      .select({ content: chatMessages.content })
      .from(chatMessages)
      .where(and(eq(chatMessages.conversationId, conversation.id), eq(chatMessages.role, 'user')))
      .orderBy(desc(chatMessages.createdAt), desc(chatMessages.id))
      .limit(EARLIER_TURNS);
    earlier = previous.map((row) => row.content).reverse();
  }
  const scope = await resolveAiScope(db, user, scopeInput);
  await requireCredits(db, context, {
    organizationId: scope.organizationId,
    credits: creditsFor(context.config, 'chat'),
  });
  return { user, conversationId, title, content: input.content, scope, earlier };
}

/** The engine as answerQuestion calls it: a streaming engine's tokens go to `onToken` as they come. */
function passingTokens(engine: AnswerEngine, onToken: ((text: string) => void) | undefined): AnswerEngine {
  const stream = engine.answerStream?.bind(engine);
  if (!onToken || !stream) return engine;
  return { name: engine.name, answer: (input) => stream(input, onToken) };
}

/**
 * Answers the turn from the conversation's organization, then stores both messages, the question
 * (which charges its credit and records it) and the conversation's new `updatedAt` in one
 * transaction: an answer is kept and paid for together, or neither.
 */
export async function answerTurn(
  context: AppContext,
  engine: AnswerEngine,
  turn: PendingTurn,
  onToken?: (text: string) => void,
): Promise<ChatTurnView> {
  const { user, scope, content } = turn;
  const result = await answerQuestion(context, passingTokens(engine, onToken), {
    question: content,
    scope,
    asker: user,
    earlier: turn.earlier,
  });
  return context.db.transaction(async (tx) => {
    const now = context.clock.now();
    let conversationId = turn.conversationId;
    if (conversationId) {
      // Deleted while it was being answered: the turn has nowhere to go.
      const [touched] = await tx
        .update(chatConversations)
        .set({ updatedAt: now })
        .where(and(eq(chatConversations.id, conversationId), eq(chatConversations.userId, user.id)))
        .returning({ id: chatConversations.id });
      if (!touched) throw errors.notFound('Conversation not found');
    } else {
      conversationId = await insertConversation(tx, context, {
        userId: user.id,
        organizationId: scope.organizationId,
        title: turn.title,
      });
    }
    const [userMessage, assistantMessage] = await tx
      .insert(chatMessages)
      .values([
        { conversationId, role: 'user', content, createdAt: now },
        {
          conversationId,
          role: 'assistant',
          content: result.answer,
          answered: result.answered,
          confidence: result.confidence,
          citations: result.citations,
          createdAt: now,
        },
      ])
      .returning();
    if (!userMessage || !assistantMessage) throw new Error('chat_messages insert returned nothing');
    await keepQuestion(tx, context, {
      organizationId: scope.organizationId,
      userId: user.id,
      source: 'chat',
      question: content,
      result,
    });
    const answer = messageView(assistantMessage);
    return {
      conversationId,
      userMessage: messageView(userMessage),
      assistantMessage: answer,
      message: answer,
    };
  });
}
