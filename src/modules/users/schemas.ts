import { z } from 'zod';
import { ROLES } from '../../db/schema/users.ts';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { nameField, userSchema } from '../auth/schemas.ts';

const role = z.enum(ROLES);

export const profileSchema = userSchema
  .extend({
    updatedAt: timestamp(),
    organizations: z.array(z.object({ id: uuid(), name: z.string(), slug: z.string(), role })),
  })
  .meta({ id: 'UserProfile' });

export const updateProfileBody = z.object({
  name: nameField.optional(),
  avatarUrl: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048, 'must be at most 2048 characters')
    .nullable()
    .optional()
    .meta({ description: 'An http(s) URL, or null to remove the avatar.' }),
  defaultOrganizationId: uuid().optional().meta({ description: 'An organization the user belongs to.' }),
});

export const deletedSchema = z.object({ id: uuid(), deleted: z.literal(true) });

export const sessionItem = z
  .object({
    id: uuid().meta({ description: 'The public id of the session (not its token).' }),
    createdAt: timestamp(),
    expiresAt: timestamp(),
    lastUsedAt: timestamp(),
    userAgent: z.string().nullable(),
    ip: z.string().nullable(),
    current: z.boolean().meta({ description: 'True for the session making this request.' }),
  })
  .meta({ id: 'UserSession' });

export const sessionList = z.object({ data: z.array(sessionItem) });
export const sessionsRevoked = z.object({
  deleted: z.number().int().meta({ description: 'Sessions revoked.' }),
});

export const apiKeyItem = z
  .object({
    id: uuid(),
    name: z.string(),
    prefix: z.string().meta({ description: 'The first 12 characters of the key, to tell keys apart.' }),
    createdAt: timestamp(),
    lastUsedAt: timestamp().nullable(),
    expiresAt: timestamp().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyList = z.object({ data: z.array(apiKeyItem) });

export const createdApiKey = apiKeyItem
  .extend({
    key: z.string().meta({
      description:
        'The key itself (`khk_…`), shown only in this response: send it as `Authorization: Bearer <key>`.',
    }),
  })
  .meta({ id: 'CreatedApiKey' });

export const createApiKeyBody = z.object({
  name: nameField,
  expiresAt: timestamp()
    .nullable()
    .optional()
    .meta({ description: 'When the key stops working (in the future); omit or null for never.' }),
});

export const exportSchema = z
  .object({
    exportedAt: timestamp(),
    profile: z.object({
      id: uuid(),
      email: z.string(),
      name: z.string(),
      avatarUrl: z.string().nullable(),
      defaultOrganizationId: uuid().nullable(),
      emailVerifiedAt: timestamp().nullable(),
      hasPassword: z.boolean(),
      createdAt: timestamp(),
      updatedAt: timestamp(),
    }),
    linkedAccounts: z.array(
      z.object({ provider: z.string(), email: z.string().nullable(), createdAt: timestamp() }),
    ),
    memberships: z.array(
      z.object({ organizationId: uuid(), organizationName: z.string(), role, joinedAt: timestamp() }),
    ),
    sessions: z.array(sessionItem),
    apiKeys: z.array(apiKeyItem),
    invitationsSent: z.array(
      z.object({
        id: uuid(),
        organizationId: uuid(),
        email: z.string(),
        role,
        createdAt: timestamp(),
        expiresAt: timestamp(),
        acceptedAt: timestamp().nullable(),
      }),
    ),
    betaAccessRequest: z
      .object({
        id: uuid(),
        email: z.string(),
        name: z.string().nullable(),
        company: z.string().nullable(),
        useCase: z.string().nullable(),
        status: z.enum(['pending', 'approved']),
        createdAt: timestamp(),
        approvedAt: timestamp().nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'UserExport' });
