import { z } from 'zod';
import { ROLES } from '../../db/schema/users.ts';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { emailField, nameField } from '../auth/schemas.ts';
import { SLUG_PATTERN } from './slugs.ts';

export const roleField = z.enum(ROLES).meta({ description: 'owner > admin > member > viewer' });

const slugField = z
  .string()
  .regex(SLUG_PATTERN, 'must be 3–50 characters of a–z, 0–9 and inner hyphens')
  .meta({ example: 'acme-research' });

const RETENTION_DAYS = { min: 1, max: 3650 };

export const createOrganizationBody = z.object({
  name: nameField,
  slug: slugField.optional().meta({ description: 'Generated from the name when absent.' }),
});

export const updateOrganizationBody = z.object({
  name: nameField.optional(),
  slug: slugField.optional(),
  retentionDays: z
    .number()
    .int('must be a whole number')
    .min(RETENTION_DAYS.min, `must be at least ${RETENTION_DAYS.min}`)
    .max(RETENTION_DAYS.max, `must be at most ${RETENTION_DAYS.max}`)
    .optional()
    .meta({ description: 'Days a deleted video is kept before it is purged.' }),
});

export const organizationSchema = z
  .object({
    id: uuid(),
    name: z.string(),
    slug: z.string(),
    retentionDays: z.number().int(),
    role: roleField.meta({ description: "The caller's role in the organization." }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Organization' });

export const deletedSchema = z.object({ id: uuid(), deleted: z.literal(true) });

export const memberParams = z.object({ id: uuid(), userId: uuid() });

export const updateMemberBody = z.object({ role: roleField });

export const memberSchema = z
  .object({
    userId: uuid(),
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    role: roleField,
    joinedAt: timestamp(),
  })
  .meta({ id: 'Member' });

export const removedMemberSchema = z.object({ userId: uuid(), removed: z.literal(true) });

export const invitationParams = z.object({ id: uuid(), invitationId: uuid() });

export const tokenParams = z.object({
  token: z.string().min(1).max(200).meta({ description: 'The token from the invitation mail.' }),
});

export const createInvitationBody = z.object({
  email: emailField,
  role: roleField.meta({ description: 'admin, member or viewer; owner only when the caller is an owner.' }),
});

export const invitationSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    email: z.string(),
    role: roleField,
    status: z.enum(['pending', 'accepted', 'expired']),
    expiresAt: timestamp(),
    createdAt: timestamp(),
    invitedBy: uuid().nullable().meta({ description: 'The inviting user; null once that user is deleted.' }),
  })
  .meta({ id: 'Invitation' });

export const acceptedInvitationSchema = z.object({ organizationId: uuid(), role: roleField });
