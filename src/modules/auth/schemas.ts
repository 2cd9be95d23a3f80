import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { timestamp } from '../../http/timestamps.ts';

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid email address'))
  .meta({ example: 'ada@example.com' });

export const passwordField = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(128, 'must be at most 128 characters');

export const nameField = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters');

export const signUpBody = z
  .object({
    email: emailField,
    password: passwordField,
    name: nameField,
    invitationToken: z
      .string()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .optional()
      .meta({
        description:
          'The token of an invitation to this email: the account joins that organization instead of getting a personal one.',
      }),
  })
  .meta(
    requestExample('Sign up', {
      email: 'ada@example.com',
      password: 'correct horse battery staple',
      name: 'Ada Lovelace',
    }),
  );

export const signInBody = z
  .object({
    email: emailField,
    password: z.string().min(1, 'must not be empty').max(1024),
  })
  .meta(requestExample('Sign in', { email: 'ada@example.com', password: 'correct horse battery staple' }));

export const userSchema = z
  .object({
    id: uuid(),
    email: z.string(),
    name: z.string(),
    avatarUrl: z.string().nullable(),
    defaultOrganizationId: uuid().nullable(),
    createdAt: timestamp(),
  })
  .meta({ id: 'AuthUser' });

export const sessionSchema = z
  .object({
    sessionId: z
      .string()
      .meta({ description: 'The session token: send it as `Authorization: Bearer <sessionId>`.' }),
    expiresAt: timestamp(),
  })
  .meta({ id: 'AuthSession' });

/** Auth endpoints answer in the spec's envelope `{success: true, data}`. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ success: z.literal(true), data });

export const authData = envelope(z.object({ user: userSchema, session: sessionSchema }));
export const messageData = envelope(z.object({ message: z.string() }));
