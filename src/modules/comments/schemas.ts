import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { MENTIONS_MAX, mentionedUserIds } from './mentions.ts';

export const BODY_MAX = 5000;
export const REACTION_EMOJI_MAX = 20;

const bodyField = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(BODY_MAX, `must be at most ${BODY_MAX} characters`)
  .refine(
    (body) => mentionedUserIds(body).length <= MENTIONS_MAX,
    `must mention at most ${MENTIONS_MAX} different people`,
  )
  .meta({
    description:
      `1–${BODY_MAX} characters. Mention someone as \`@[Display Name](userId)\` (at most ${MENTIONS_MAX} ` +
      'people): members of the organization are notified, anyone else is ignored.',
  });

export const createCommentBody = z
  .object({
    body: bodyField,
    timestamp: z
      .number()
      .min(0, 'must be at least 0')
      .max(1_000_000_000, 'is too large')
      .nullable()
      .optional()
      .meta({
        description:
          "Seconds into the video the comment is about, at most the video's duration when known; " +
          'null or absent: not anchored.',
      }),
    parentId: uuid()
      .nullable()
      .optional()
      .meta({
        description:
          'The comment replied to, of the same video and not deleted. Threads are one level deep: a reply ' +
          'to a reply joins the thread of its root.',
      }),
  })
  .meta(
    requestExample('A comment at 12:34', { body: 'Can we link the rollout checklist here?', timestamp: 754 }),
  );

export const updateCommentBody = z.object({ body: bodyField });

export type CreateCommentInput = z.output<typeof createCommentBody>;

export const COMMENT_SORTS = ['createdAt', '-createdAt', 'timestamp'] as const;

export const listCommentsQuery = paginationQuery.extend({
  sort: z
    .enum(COMMENT_SORTS)
    .default('createdAt')
    .meta({
      description:
        'Order of the threads: `createdAt` (oldest first, the default), `-createdAt` (newest first), ' +
        '`timestamp` (anchored ones by second, then the others oldest first).',
    }),
});

export type CommentSort = (typeof COMMENT_SORTS)[number];

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** One user-perceived character that is an emoji (skin tones, flags and ZWJ sequences included). */
function isSingleEmoji(value: string): boolean {
  // The longest emoji sequences (tag flags, ZWJ families) are well under 64 UTF-16 units.
  if (value.length === 0 || value.length > 64) return false;
  const [first, ...rest] = graphemes.segment(value);
  return first !== undefined && rest.length === 0 && EMOJI.test(first.segment);
}

export const reactionBody = z.object({
  emoji: z
    .string()
    .refine(isSingleEmoji, 'must be a single emoji')
    .meta({ description: 'Exactly one emoji, e.g. 👍, 👍🏽, 🇫🇷 or ❤️.', example: '👍' }),
});

const reactionSchema = z.object({
  emoji: z.string(),
  count: z.number().int(),
  reacted: z.boolean().meta({ description: 'Whether the caller reacted with this emoji.' }),
});

const mentionSchema = z.object({
  userId: uuid(),
  name: z.string().meta({ description: "The person's current name." }),
});

const commentFields = {
  id: uuid(),
  videoId: uuid(),
  organizationId: uuid(),
  parentId: uuid().nullable().meta({ description: 'The root of the thread; null for a top-level comment.' }),
  author: z
    .object({ id: uuid(), name: z.string(), avatarUrl: z.string().nullable() })
    .nullable()
    .meta({ description: 'null for a deleted comment or once the account is deleted.' }),
  body: z.string().meta({ description: '`[deleted]` for a deleted comment kept for its replies.' }),
  timestamp: z.number().nullable().meta({ description: 'Seconds into the video; null when not anchored.' }),
  mentions: z.array(mentionSchema).meta({ description: 'Mentioned members, in order of appearance.' }),
  reactions: z.array(reactionSchema).meta({ description: 'One entry per emoji, in order of first use.' }),
  isDeleted: z
    .boolean()
    .meta({ description: 'A deleted comment still listed because it has replies (a tombstone).' }),
  editedAt: timestamp().nullable(),
  createdAt: timestamp(),
  updatedAt: timestamp(),
};

export const commentSchema = z.object(commentFields).meta({ id: 'Comment' });

export const commentThreadSchema = z
  .object({
    ...commentFields,
    replies: z.array(commentSchema).meta({ description: 'Every reply, oldest first.' }),
  })
  .meta({ id: 'CommentThread' });

export const reactionToggleSchema = z
  .object({
    commentId: uuid(),
    emoji: z.string(),
    reacted: z.boolean().meta({ description: 'Whether the caller now has this reaction.' }),
    reactions: z.array(reactionSchema),
  })
  .meta({ id: 'CommentReactionToggle' });

export type CommentView = z.output<typeof commentSchema>;
export type CommentThreadView = z.output<typeof commentThreadSchema>;
export type ReactionView = z.output<typeof reactionSchema>;
