import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { aiScopeFields, citationSchema } from '../ai/schemas.ts';

const title = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .meta({ example: 'Launch planning' });

const messageText = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(4000, 'must be at most 4000 characters')
  .meta({ example: 'When is the launch date?' });

export const chatMessageSchema = z
  .object({
    id: uuid(),
    role: z.enum(['user', 'assistant']),
    content: z.string().meta({
      description:
        "The person's message, or the answer: its claims carry `[n]` markers that refer to `citations[].source`.",
    }),
    answered: z.boolean().nullable().meta({
      description: 'Assistant messages: false when nothing you can access answers. Null on user messages.',
    }),
    confidence: z
      .number()
      .nullable()
      .meta({ description: 'Assistant messages: 0–1. Null on user messages.' }),
    citations: z.array(citationSchema),
    createdAt: timestamp(),
  })
  .meta({ id: 'ChatMessage' });

export type ChatMessageView = z.infer<typeof chatMessageSchema>;

const conversationFields = {
  id: uuid(),
  organizationId: uuid(),
  title: z.string(),
  messageCount: z.number().int(),
  lastMessageAt: timestamp().nullable(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
};

export const conversationSchema = z.object(conversationFields).meta({ id: 'Conversation' });

export type ConversationView = z.infer<typeof conversationSchema>;

export const conversationDetailSchema = z
  .object({
    ...conversationFields,
    messages: z.array(chatMessageSchema).meta({ description: 'Every message, oldest first.' }),
  })
  .meta({ id: 'ConversationWithMessages' });

export const chatTurnSchema = z
  .object({
    conversationId: uuid(),
    userMessage: chatMessageSchema,
    assistantMessage: chatMessageSchema,
    message: chatMessageSchema.meta({
      description: 'The answer, as API.md names it for `POST /ai/chat` (the same as `assistantMessage`).',
    }),
  })
  .meta({ id: 'ChatTurn' });

export type ChatTurnView = z.infer<typeof chatTurnSchema>;

export const listConversationsQuery = paginationQuery.extend({
  organizationId: uuid()
    .optional()
    .meta({ description: 'Only this organization (you must belong to it). Default: all of yours.' }),
});

export const createConversationBody = z.object({
  organizationId: aiScopeFields.organizationId,
  title: title.optional().meta({
    description: 'Default: the start of the first message, else "New conversation".',
  }),
  message: messageText.optional().meta({ description: 'A first message: answered in the same request.' }),
});

export const updateConversationBody = z.object({ title });

export const sendMessageBody = z.object({ content: messageText });

export const aiChatBody = z.object({
  message: messageText,
  conversationId: uuid().optional().meta({
    description: 'Continue this conversation of yours. Default: start a new one, titled after the message.',
  }),
  ...aiScopeFields,
});

export type AiChatInput = z.output<typeof aiChatBody>;
