import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { requestExample } from '../../http/openapi.ts';
import { timestamp } from '../../http/timestamps.ts';
import { someField } from '../channels/schemas.ts';

export const DESCRIPTION_MAX = 1000;

const titleField = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .meta({ description: '1–200 characters.' });

/** Up to 1000 characters; empty means none. */
const descriptionField = z
  .string()
  .trim()
  .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`)
  .transform((value) => (value === '' ? null : value));

const secondsField = z
  .number()
  .min(0, 'must be at least 0')
  .max(1_000_000_000, 'is too large')
  .meta({ description: 'Seconds from the start of the video.' });

export const createClipBody = z
  .object({
    title: titleField,
    description: descriptionField.nullable().optional(),
    startTime: secondsField,
    endTime: secondsField.meta({
      description: "Seconds from the start; after startTime, at most the video's duration when known.",
    }),
  })
  .meta(
    requestExample('A clip of the decision', { title: 'The launch decision', startTime: 754, endTime: 812 }),
  );

export const updateClipBody = z
  .object({
    title: titleField.nullable().optional().meta({ description: 'null leaves it unchanged.' }),
    description: descriptionField.nullable().optional().meta({ description: 'null clears it.' }),
    startTime: secondsField.nullable().optional().meta({ description: 'null leaves it unchanged.' }),
    endTime: secondsField.nullable().optional().meta({ description: 'null leaves it unchanged.' }),
  })
  .refine(someField, 'must give title, description, startTime or endTime');

export type CreateClipInput = z.output<typeof createClipBody>;
export type UpdateClipInput = z.output<typeof updateClipBody>;

export const clipSchema = z
  .object({
    id: uuid(),
    videoId: uuid(),
    organizationId: uuid(),
    title: z.string(),
    description: z.string().nullable(),
    startTime: z.number(),
    endTime: z.number(),
    duration: z.number().meta({ description: 'endTime − startTime, in seconds.' }),
    transcriptExcerpt: z
      .string()
      .nullable()
      .meta({
        description:
          'The transcript of the time range (`Speaker: text` per turn, at most 2000 characters); ' +
          'null when the video has no transcript.',
      }),
    createdBy: uuid().nullable().meta({ description: 'The creating user; null once that user is deleted.' }),
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'Clip' });

export type ClipView = z.output<typeof clipSchema>;
