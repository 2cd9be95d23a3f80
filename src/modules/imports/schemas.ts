import { z } from 'zod';
import { importFileStatuses, importStatuses } from '../../db/schema/integrations.ts';
import { uuid } from '../../http/ids.ts';
import { timestamp } from '../../http/timestamps.ts';
import { IMPORT_FORMATS } from './formats.ts';
import { IMPORT_LIMITS } from './upload.ts';

export const IMPORT_VISIBILITIES = ['private', 'public'] as const;
export type ImportVisibility = (typeof IMPORT_VISIBILITIES)[number];

/** The form of POST /integrations/import, as upload.ts hands it over (each zip already unpacked). */
export const importBody = z.object({
  organizationId: uuid().meta({ description: 'Where the videos go (the caller must be a member or above).' }),
  channelId: uuid().optional().meta({ description: 'A channel of that organization to file the videos in.' }),
  visibility: z
    .enum(IMPORT_VISIBILITIES)
    .default('private')
    .meta({ description: '`public` videos are readable without signing in.' }),
  files: z
    .array(z.file())
    .min(1, 'at least one transcript file is required')
    .max(IMPORT_LIMITS.files, `at most ${IMPORT_LIMITS.files} files per import (each entry of a zip counts)`)
    .meta({
      description:
        'Form field `files` (or `file`), repeated: WebVTT (Zoom’s too), SRT, speaker-labelled or plain text, ' +
        'JSON segments, Zoom’s `.txt` or Google Meet’s transcript export — or `.zip` archives of them.',
    }),
});
export type ImportInput = z.output<typeof importBody>;

export const importFileSchema = z.object({
  name: z.string().meta({ description: 'As uploaded; an entry of a zip as `archive.zip/folder/file.vtt`.' }),
  status: z.enum(importFileStatuses),
  format: z
    .enum(IMPORT_FORMATS)
    .nullable()
    .meta({ description: 'How the file was read; null when it was not.' }),
  videoId: uuid().nullable().meta({
    description: 'The video created, or (for a duplicate) the one created from the same bytes before.',
  }),
  error: z.string().nullable().meta({ description: 'Why the file failed.' }),
  line: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The 1-based line where it failed, when one is to blame.' }),
});

export const importJobSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    channelId: uuid().nullable(),
    visibility: z.enum(IMPORT_VISIBILITIES),
    status: z.enum(importStatuses),
    counts: z.object({
      total: z.number().int(),
      processed: z.number().int().meta({ description: 'created + duplicates + failed.' }),
      created: z.number().int(),
      duplicates: z.number().int(),
      failed: z.number().int(),
    }),
    files: z.array(importFileSchema).meta({ description: 'In the order they were sent.' }),
    createdAt: timestamp(),
    startedAt: timestamp().nullable(),
    finishedAt: timestamp().nullable(),
  })
  .meta({ id: 'ImportJob' });

export type ImportJobView = z.output<typeof importJobSchema>;

export const importParams = z.object({ jobId: uuid() });
