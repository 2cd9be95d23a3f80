import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { nameField } from '../auth/schemas.ts';

/** A description of a channel or series: up to 2000 characters; empty means none. */
export const descriptionField = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .transform((value) => (value === '' ? null : value));

/** List queries of organization content: without `organizationId`, every organization of the caller. */
export const organizationListQuery = paginationQuery.extend({
  organizationId: uuid()
    .optional()
    .meta({ description: "Only this organization's (the caller must be a member); default: all of theirs." }),
});

/** A PATCH body must change something. */
export const someField = (body: Record<string, unknown>) =>
  Object.values(body).some((value) => value !== undefined);

export const createChannelBody = z.object({
  organizationId: uuid(),
  name: nameField,
  description: descriptionField.nullable().optional(),
});

export const updateChannelBody = z
  .object({
    name: nameField.optional(),
    description: descriptionField.nullable().optional().meta({ description: 'null clears it.' }),
  })
  .refine(someField, 'must change name or description');

export const channelSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    name: z.string(),
    description: z.string().nullable(),
    createdBy: uuid().nullable().meta({ description: 'The creating user; null once that user is deleted.' }),
    videoCount: z.number().int().meta({ description: 'Videos in the channel, deleted ones excluded.' }),
    followerCount: z.number().int(),
    following: z.boolean().meta({ description: 'Whether the caller follows the channel.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Channel' });

export type ChannelView = z.output<typeof channelSchema>;

export const followSchema = z
  .object({ channelId: uuid(), following: z.boolean(), followerCount: z.number().int() })
  .meta({ id: 'ChannelFollow' });
