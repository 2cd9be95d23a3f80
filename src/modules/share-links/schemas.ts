import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { passwordField } from '../auth/schemas.ts';

const DOMAIN_PATTERN =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

const emailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(DOMAIN_PATTERN, 'must be a domain like example.com')
  .meta({ example: 'example.com' });

/** Every option may be left out, the body too (Fastify passes a missing body as null). */
export const createShareLinkBody = z.preprocess(
  (body) => body ?? {},
  z.object({
    password: passwordField.optional().meta({
      description:
        'Viewers must send it to `POST /share/{token}/verify` first. Stored hashed, never returned.',
    }),
    expiresAt: timestamp().nullable().optional().meta({ description: 'Must be in the future; null: never.' }),
    maxViews: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(1_000_000, 'must be at most 1000000')
      .nullable()
      .optional()
      .meta({ description: 'The link stops working after this many views; null: unlimited.' }),
    allowedEmailDomains: z
      .array(emailDomain)
      .max(20, 'must have at most 20 domains')
      .nullable()
      .optional()
      .meta({
        description:
          'When non-empty, only signed-in users whose email domain is exactly one of these may open the link ' +
          '(subdomains are not included). Empty or null: anyone with the link.',
      }),
  }),
);

export type CreateShareLinkInput = z.output<typeof createShareLinkBody>;

const linkFields = {
  id: uuid(),
  expiresAt: timestamp().nullable(),
  maxViews: z.number().int().nullable(),
  viewCount: z.number().int(),
  hasPassword: z.boolean(),
  allowedEmailDomains: z.array(z.string()).nullable().meta({ description: 'Null: no domain restriction.' }),
  createdAt: timestamp(),
};

export const createdShareLinkSchema = z
  .object({
    ...linkFields,
    token: z.string().meta({ description: 'Shown once: only its hash is stored.' }),
    url: z.string().meta({ description: 'The page to give out: `{APP_URL}/share/{token}`.' }),
  })
  .meta({ id: 'CreatedShareLink' });

export const shareLinkSchema = z
  .object({ ...linkFields, revokedAt: timestamp().nullable() })
  .meta({ id: 'ShareLink' });

export type ShareLinkView = z.output<typeof shareLinkSchema>;

export const shareLinkListSchema = z.object({ data: z.array(shareLinkSchema) });

export const revokedShareLinkSchema = z.object({ id: uuid(), revoked: z.literal(true) });

export const shareTokenParams = z.object({ token: z.string().min(1).max(200) });

export const shareHeaders = z.object({
  'x-share-token': z
    .string()
    .optional()
    .meta({ description: 'The access token from `POST /share/{token}/verify`, for a link with a password.' }),
});

export const verifyShareBody = z.object({ password: z.string().min(1, 'must not be empty').max(1024) });

export const shareAccessSchema = z
  .object({
    accessToken: z.string().meta({ description: 'Send it as the `x-share-token` header.' }),
    expiresAt: timestamp(),
  })
  .meta({ id: 'ShareAccess' });

export const sharedPageSchema = z
  .object({
    video: z.object({
      id: uuid(),
      title: z.string(),
      description: z.string().nullable(),
      duration: z.string(),
      durationSeconds: z.number().nullable(),
      thumbnailUrl: z.string().nullable(),
      videoUrl: z.string().nullable(),
      recordedAt: timestamp().nullable(),
      createdAt: timestamp(),
    }),
    transcript: z
      .object({
        segments: z.array(
          z.object({ start: z.number(), end: z.number(), speaker: z.string().nullable(), text: z.string() }),
        ),
      })
      .nullable()
      .meta({ description: 'Null when the video has no transcript.' }),
    expiresAt: timestamp().nullable().meta({ description: "The link's expiry; null: never." }),
  })
  .meta({ id: 'SharedVideo' });

export type SharedPage = z.output<typeof sharedPageSchema>;
