import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { TRANSCRIPT_FORMATS } from './parse.ts';

/** Characters allowed in a transcript text: the raw upload limit is 25 MiB. */
const MAX_TEXT = 25 * 1024 * 1024;
const speakerName = z.string().trim().min(1).max(100);

export const segmentSchema = z.object({
  index: z.number().int(),
  start: z.number().meta({ description: 'Seconds from the start of the video.' }),
  end: z.number(),
  speaker: z.string().nullable().meta({ description: "The speaker's name, null when unknown." }),
  speakerId: uuid().nullable(),
  text: z.string(),
});

export const transcriptSchema = z
  .object({
    videoId: uuid(),
    text: z.string().nullable().meta({ description: 'The transcript as uploaded (null: none).' }),
    format: z.enum(TRANSCRIPT_FORMATS).nullable(),
    segments: z.array(segmentSchema),
  })
  .meta({ id: 'Transcript' });

export type TranscriptView = z.output<typeof transcriptSchema>;

const segmentInput = z.object({
  start: z.number().min(0),
  end: z.number(),
  speaker: speakerName.nullable().optional(),
  text: z.string().trim().min(1).max(100_000),
});

export type SegmentInput = z.output<typeof segmentInput>;

/**
 * Either `text` (any format of API.md §4, detected unless `format` says) or ready `segments`. A raw
 * text/plain, text/vtt or application/x-subrip body arrives here as `{text, format?}`.
 */
export const putTranscriptBody = z
  .object({
    text: z.string().max(MAX_TEXT).nullable().optional(),
    format: z.enum(TRANSCRIPT_FORMATS).optional(),
    segments: z.array(segmentInput).max(500_000).optional(),
  })
  .superRefine((body, check) => {
    if ((body.text === undefined) === (body.segments === undefined)) {
      check.addIssue({ code: 'custom', path: ['text'], message: 'Send either text or segments' });
    }
    body.segments?.forEach((segment, index) => {
      if (segment.end <= segment.start) {
        check.addIssue({ code: 'custom', path: ['segments', index, 'end'], message: 'must be after start' });
      }
      const previous = body.segments?.[index - 1];
      if (previous && segment.start < previous.start) {
        check.addIssue({
          code: 'custom',
          path: ['segments', index, 'start'],
          message: 'segments must be ordered by start',
        });
      }
    });
  });

export type PutTranscriptBody = z.output<typeof putTranscriptBody>;

export const speakerSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    name: z.string(),
    userId: uuid().nullable().meta({ description: 'The member this speaker is, when linked.' }),
    videoCount: z.number().int().meta({ description: 'Videos (not deleted) in which the speaker talks.' }),
    createdAt: timestamp(),
  })
  .meta({ id: 'Speaker' });

export type SpeakerView = z.output<typeof speakerSchema>;

export const listSpeakersQuery = paginationQuery.extend({
  organizationId: uuid().optional().meta({ description: "Default: every organization of the caller's." }),
});

export const updateSpeakerBody = z.object({
  name: speakerName.optional(),
  userId: uuid().nullable().optional(),
});

export const linkVideoSpeakersBody = z.object({
  speakers: z
    .array(z.object({ speakerId: uuid(), userId: uuid().nullable() }))
    .min(1)
    .max(100),
});

export const videoSpeakersSchema = z.object({ videoId: uuid(), speakers: z.array(speakerSchema) });
