import { z } from 'zod';
import { timestamp } from '../../http/timestamps.ts';
import { videoSchema } from '../videos/schemas.ts';

/**
 * The form of an upload. The file is streamed to the store by the handler (never held in memory),
 * so the schema only tells clients and OpenAPI what to send.
 */
export const uploadRecordingBody = z.object({
  file: z.unknown().optional().meta({
    type: 'string',
    format: 'binary',
    description: 'The recording: mp4, webm, mov, m4a, mp3, wav, ogg or flac.',
  }),
});

export const mediaSchema = z
  .object({
    url: z
      .string()
      .meta({ description: 'Where it plays from (GET /videos/{id}/media); the video’s `videoUrl`.' }),
    contentType: z.string().meta({ description: 'As read from the file’s content.' }),
    container: z.string().nullable(),
    codec: z.string().nullable(),
    bytes: z.number().int(),
    durationSeconds: z.number().nullable(),
    sha256: z.string().meta({ description: 'Hex SHA-256 of the file; its ETag.' }),
    createdAt: timestamp(),
    video: videoSchema,
  })
  .meta({ id: 'StoredRecording' });

export type MediaView = z.output<typeof mediaSchema>;
