import { openAsBlob } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { videoMedia, videos } from '../../db/schema/index.ts';
import type { JobDefinition, JobQueue } from '../../jobs/queue.ts';
import { byteSize } from '../../lib/bytes.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordActivity } from '../activity/service.ts';
import { chargeCredits, requireCredits } from '../ai/budget.ts';
import { storeSegmentsTranscript } from '../transcripts/service.ts';
import { MEDIA_TRANSCRIPTION_JOB } from './service.ts';
import { CHUNK_BYTES_PER_SECOND, chunksOf, encodeChunk, ffmpegFor, silencesIn } from './split.ts';
import type { MediaStore } from './storage.ts';

type Transcription = Extract<Config['media']['transcription'], { provider: 'openai-compatible' }>;

/** Runs of one recording's transcription: the first and its retries (pg-boss retries with backoff). */
export const TRANSCRIPTION_RUNS = 4;

/** What `response_format=verbose_json` answers (OpenAI, whisper.cpp's server, faster-whisper servers). */
const verboseJson = z.object({
  text: z.string().default(''),
  duration: z.number().optional(),
  segments: z
    .array(
      z.object({
        start: z.number().min(0),
        end: z.number().min(0),
        text: z.string(),
        // Some servers label speakers (diarization); OpenAI's does not.
        speaker: z.string().nullish(),
      }),
    )
    .default([]),
});

/** A failure of a run, with the reason people read on the video (`transcriptError`). */
class TranscriptionError extends Error {
  /** Whether running again may help (a timeout, a 5xx, a 429). */
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}

/** Sends the file to `POST {base}/audio/transcriptions` and reads its timed segments. */
async function transcribe(settings: Transcription, file: string, contentType: string, name: string) {
  const form = new FormData();
  // Providers tell the format by the name's extension (OpenAI does): the stored key has it.
  form.append('file', await openAsBlob(file, { type: contentType }), name);
  form.append('model', settings.model);
  form.append('response_format', 'verbose_json');
  form.append('timestamp_granularities[]', 'segment');
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      body: form,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (error) {
    throw new TranscriptionError(
      `The transcription provider could not be reached (${(error as Error).message})`,
      true,
    );
  }
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    throw new TranscriptionError(
      `The transcription provider answered ${response.status}${detail ? `: ${detail}` : ''}`,
      response.status >= 500 || response.status === 429,
    );
  }
  const parsed = verboseJson.safeParse(await response.json().catch(() => null));
  if (!parsed.success)
    throw new TranscriptionError(
      'The transcription provider answered something other than verbose_json',
      false,
    );
  return parsed.data;
}

/**
 * The provider's segments as the transcript's: its speaker labels when it gives them, otherwise one
 * "Speaker 1" that people rename or split later; a text without segments spans the recording.
 */
export function segmentsOf(result: z.output<typeof verboseJson>, durationSeconds: number | null) {
  const spoken = result.segments.filter((segment) => segment.text.trim() !== '');
  if (spoken.length > 0) {
    return spoken.map((segment) => ({
      start: segment.start,
      end: Math.max(segment.end, segment.start),
      speaker: segment.speaker?.trim() || 'Speaker 1',
      text: segment.text.trim(),
    }));
  }
  const text = result.text.trim();
  return text === ''
    ? []
    : [{ start: 0, end: durationSeconds ?? result.duration ?? 0, speaker: 'Speaker 1', text }];
}

/**
 * A recording over the provider's size limit, transcribed in chunks: cut at silences (ffmpeg's
 * silencedetect) into pieces short enough that, re-encoded as speech-grade MP3, each fits the
 * limit; each piece's segments are moved to where the piece starts in the recording.
 */
async function transcribeInChunks(
  settings: Transcription,
  store: MediaStore,
  file: string,
  media: { bytes: number; durationSeconds: number | null },
) {
  const ffmpeg = ffmpegFor(settings.ffmpegPath);
  if (!ffmpeg) {
    throw new TranscriptionError(
      `The recording is ${byteSize(media.bytes)} and the transcription provider takes at most ` +
        `${byteSize(settings.maxBytes)}; splitting it needs ffmpeg, which is not available here (set FFMPEG_PATH)`,
      false,
    );
  }
  const longest = Math.max(1, Math.floor((settings.maxBytes * 0.9) / CHUNK_BYTES_PER_SECOND));
  const split = async <T>(work: () => Promise<T>) =>
    work().catch((error: Error) => {
      throw new TranscriptionError(
        `ffmpeg could not split the recording (${error.message.split('\n')[0]})`,
        false,
      );
    });
  const chunks = chunksOf(media.durationSeconds ?? 0, await split(() => silencesIn(ffmpeg, file)), longest);
  const segments: ReturnType<typeof segmentsOf> = [];
  for (const [index, chunk] of chunks.entries()) {
    const piece = await store.incomingFile();
    try {
      await split(() => encodeChunk(ffmpeg, file, chunk, piece));
      const result = await transcribe(settings, piece, 'audio/mpeg', `part-${index + 1}.mp3`);
      for (const segment of segmentsOf(result, chunk.end - chunk.start)) {
        segments.push({ ...segment, start: segment.start + chunk.start, end: segment.end + chunk.start });
      }
    } finally {
      await rm(piece, { force: true });
    }
  }
  return segments;
}

type Context = { config: Config; clock: Clock; store: MediaStore; jobs: Pick<JobQueue, 'send'> };
type Request = { videoId: string; storageKey: string };

/** Takes the run: the video still waits for this recording's transcript. Null when it does not. */
async function claim(db: Db, context: Context, request: Request) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        status: videos.transcriptStatus,
        organizationId: videos.organizationId,
        storageKey: videoMedia.storageKey,
      })
      .from(videos)
      .innerJoin(videoMedia, eq(videoMedia.videoId, videos.id))
      .where(eq(videos.id, request.videoId))
      .for('update', { of: videos });
    if (!row || row.storageKey !== request.storageKey) return null;
    if (row.status !== 'queued' && row.status !== 'processing') return null;
    const [media] = await tx
      .update(videoMedia)
      .set({ transcriptionAttempts: sql`${videoMedia.transcriptionAttempts} + 1` })
      .where(eq(videoMedia.videoId, request.videoId))
      .returning();
    await tx
      .update(videos)
      .set({ transcriptStatus: 'processing', updatedAt: context.clock.now() })
      .where(eq(videos.id, request.videoId));
    return media ? { organizationId: row.organizationId, media } : null;
  });
}

/**
 * One run of a recording's transcription. It gives way to people: a video whose status is no
 * longer queued or processing (a transcript was put meanwhile) or whose recording was replaced is
 * left alone. A failure that running again may cure is retried (pg-boss, with backoff); the last
 * run, or a failure that will not change, marks the video `failed` with the reason. The recording
 * stays either way, and PUT /videos/{id}/transcript still works.
 */
export async function runTranscription(db: Db, context: Context, request: Request): Promise<void> {
  const claimed = await claim(db, context, request);
  if (!claimed) return;
  const { media, organizationId } = claimed;
  const settings = context.config.media.transcription;
  try {
    if (settings.provider === 'none')
      throw new TranscriptionError('No transcription provider is configured', false);
    const credits = settings.creditsPerMinute * Math.max(1, Math.ceil((media.durationSeconds ?? 0) / 60));
    // Refused before the provider is called: an organization over its budget costs nothing.
    await requireCredits(db, context, { organizationId, credits }).catch((error: Error) => {
      throw new TranscriptionError(
        `${error.message}: upload the recording again next month, or put a transcript`,
        false,
      );
    });
    const copy = await context.store.localCopy(media.storageKey);
    const segments = await (media.bytes <= settings.maxBytes
      ? transcribe(settings, copy.file, media.contentType, path.basename(media.storageKey)).then((result) =>
          segmentsOf(result, media.durationSeconds),
        )
      : transcribeInChunks(settings, context.store, copy.file, media)
    ).finally(copy.release);
    if (segments.length === 0)
      throw new TranscriptionError('The transcription provider heard no speech', false);
    await db.transaction(async (tx) => {
      const [video] = await tx
        .select({ status: videos.transcriptStatus })
        .from(videos)
        .where(eq(videos.id, request.videoId))
        .for('update');
      if (video?.status !== 'processing') return;
      await chargeCredits(tx, context, { organizationId, credits, feature: 'transcription' });
      const { segmentCount } = await storeSegmentsTranscript(
        tx,
        context,
        { id: request.videoId, organizationId },
        segments,
      );
      await recordActivity(tx, {
        organizationId,
        actorId: null,
        action: 'transcript.updated',
        targetType: 'transcript',
        targetId: request.videoId,
        metadata: { videoId: request.videoId, segmentCount, source: 'transcription' },
      });
    });
  } catch (error) {
    const failure =
      error instanceof TranscriptionError ? error : new TranscriptionError((error as Error).message, true);
    const last = !failure.retryable || media.transcriptionAttempts >= TRANSCRIPTION_RUNS;
    await db
      .update(videos)
      .set({
        transcriptStatus: last ? 'failed' : 'queued',
        transcriptError: failure.message,
        updatedAt: context.clock.now(),
      })
      .where(and(eq(videos.id, request.videoId), eq(videos.transcriptStatus, 'processing')));
    if (!last) throw failure;
  }
}

/** The transcription job: one recording per run, retried with backoff up to TRANSCRIPTION_RUNS. */
export function transcriptionJobs(context: Omit<Context, 'jobs'>): JobDefinition[] {
  return [
    {
      name: MEDIA_TRANSCRIPTION_JOB,
      queue: { retryLimit: TRANSCRIPTION_RUNS - 1, retryDelay: 30, retryBackoff: true },
      handler: (data, { db, jobs }) => runTranscription(db, { ...context, jobs }, data as Request),
    },
  ];
}
