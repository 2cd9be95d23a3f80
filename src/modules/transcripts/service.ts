import { and, eq, inArray, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { retriedTransaction } from '../../db/errors.ts';
import { speakers, transcriptSegments, videos } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { recordActivity } from '../activity/service.ts';
import { storeSpeakerStats } from '../analytics/stats-store.ts';
import { requestKnowledgeExtraction } from '../knowledge/service.ts';
import { buildChunks, holdVideoPassages, writeChunks } from '../search/chunks.ts';
import { requestEmbeddings } from '../search/embeddings.ts';
import { indexVideoTerms } from '../search/video-terms.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { toSrt, toVtt } from './format.ts';
import { detectFormat, parseTranscript, type TranscriptFormat } from './parse.ts';
import { cleanText } from './parse-text.ts';
import type { PutTranscriptBody, TranscriptView } from './schemas.ts';
import { roundTime, type Segment, TranscriptSyntaxError } from './segment.ts';
import { transcriptSegmentsOf } from './segments.ts';

/** Rows per INSERT: one JSON parameter each, so the statement size stays bounded. */
const SEGMENT_BATCH = 10_000;
const SPEAKER_BATCH = 1_000;

/** What storing a transcript needs besides the transaction: a request's context, or a job's. */
export type TranscriptWriteContext = Pick<AppContext, 'config' | 'clock'> & {
  jobs: Pick<AppContext['jobs'], 'send'>;
};

type TranscriptInput = {
  video: { id: string; organizationId: string; durationSeconds?: number | null };
  text: string | null;
  /** Parse as this format instead of detecting it. */
  format?: TranscriptFormat;
  /** Where the transcript was in the request, for the error details (default `body.transcript`). */
  detailsPath?: string;
};

/**
 * Makes `text` the video's transcript: parses it, creates the organization's speakers from its
 * labels and replaces the video's segments. Null removes the transcript. Runs in the caller's
 * transaction; a transcript that cannot be parsed is a 400 naming the failing line.
 */
export async function replaceTranscript(
  tx: Tx,
  context: TranscriptWriteContext,
  input: TranscriptInput,
): Promise<{ segmentCount: number }> {
  const { video, text } = input;
  let segments: Segment[] = [];
  if (text !== null) {
    const durationSeconds =
      video.durationSeconds !== undefined ? video.durationSeconds : await durationOf(tx, video.id);
    try {
      ({ segments } = await parseTranscript(text, { format: input.format, durationSeconds }));
    } catch (error) {
      if (!(error instanceof TranscriptSyntaxError)) throw error;
      throw new AppError(400, 'INVALID_TRANSCRIPT', 'The transcript could not be parsed', {
        details: [{ path: input.detailsPath ?? 'body.transcript', message: error.message }],
      });
    }
  }
  await writeTranscript(tx, context, video, text, segments);
  return { segmentCount: segments.length };
}

async function writeTranscript(
  tx: Tx,
  context: TranscriptWriteContext,
  video: { id: string; organizationId: string },
  text: string | null,
  segments: Segment[],
) {
  await storeSegments(tx, video, segments);
  await tx
    .update(videos)
    .set({
      transcript: text,
      transcriptStatus: text === null ? 'none' : 'ready',
      transcriptError: null,
      updatedAt: context.clock.now(),
    })
    .where(eq(videos.id, video.id));
  await requestKnowledgeExtraction(tx, context, { ...video, hasTranscript: segments.length > 0 });
  await requestEmbeddings(tx, context.jobs, video.id, context.config);
}

/**
 * Makes ready segments (a client's, or a speech-to-text provider's) the video's transcript, kept
 * as WebVTT: the one text format that carries times and speakers both.
 */
export async function storeSegmentsTranscript(
  tx: Tx,
  context: TranscriptWriteContext,
  video: { id: string; organizationId: string },
  given: Array<{ start: number; end: number; speaker?: string | null; text: string }>,
): Promise<{ text: string; segmentCount: number }> {
  const segments = given.map((segment, index) => ({
    index,
    start: roundTime(segment.start),
    end: roundTime(segment.end),
    speaker: segment.speaker ? cleanText(segment.speaker).replace(/\n/g, ' ') : null,
    text: cleanText(segment.text),
  }));
  const text = toVtt(segments);
  await writeTranscript(tx, context, video, text, segments);
  return { text, segmentCount: segments.length };
}

async function durationOf(tx: Tx, videoId: string): Promise<number | null> {
  const [row] = await tx
    .select({ durationSeconds: videos.durationSeconds })
    .from(videos)
    .where(eq(videos.id, videoId));
  return row?.durationSeconds ?? null;
}

const normalizeName = (name: string) => name.trim().toLowerCase();

/** A transcript's segments with everything derived from them: speakers, passages, word counts, talk time. */
export async function storeSegments(
  tx: Tx,
  video: { id: string; organizationId: string },
  segments: Segment[],
) {
  await tx.delete(transcriptSegments).where(eq(transcriptSegments.videoId, video.id));
  const speakerOf = await upsertSpeakers(tx, video.organizationId, segments);
  const speakerFor = (segment: Segment) =>
    segment.speaker === null ? undefined : speakerOf.get(normalizeName(segment.speaker));
  for (let offset = 0; offset < segments.length; offset += SEGMENT_BATCH) {
    const rows = segments.slice(offset, offset + SEGMENT_BATCH).map((segment) => ({
      id: uuidv7(),
      index: segment.index,
      start: segment.start,
      end: segment.end,
      speakerId: speakerFor(segment)?.id ?? null,
      label: segment.speaker,
      text: segment.text,
    }));
    // One JSON parameter per batch: far faster than a VALUES list for a transcript of 100k cues.
    await tx.execute(sql`
      INSERT INTO transcript_segments
        (id, video_id, organization_id, index, start_seconds, end_seconds, speaker_id, speaker_label, text)
      SELECT r.id, ${video.id}, ${video.organizationId}, r.index, r.start, r.end, r."speakerId", r.label, r.text
      FROM json_to_recordset(${JSON.stringify(rows)}::json)
        AS r(id uuid, index int, start float8, "end" float8, "speakerId" uuid, label text, text text)`);
  }
  // The search index and the AI layer read passages, cut from these segments under the speakers' names.
  await writeChunks(
    tx,
    video,
    buildChunks(
      segments.map((segment) => ({
        ...segment,
        speaker: speakerFor(segment)?.name ?? segment.speaker,
        speakerId: speakerFor(segment)?.id ?? null,
      })),
    ),
  );
  await indexVideoTerms(tx, video);
  await storeSpeakerStats(
    tx,
    video,
    segments.map((segment) => ({ ...segment, speakerId: speakerFor(segment)?.id ?? null })),
  );
}

/**
 * The organization's speakers for the labels (id and current name), created when new; by
 * normalized name. Existing speakers are share-locked: transcripts stored at once in one
 * organization read the same speakers side by side, while a rename (which rewrites the passages
 * under the new name) waits for them to commit, and they for it.
 */
async function upsertSpeakers(
  tx: Tx,
  organizationId: string,
  segments: Segment[],
): Promise<Map<string, { id: string; name: string }>> {
  const names = new Map<string, string>();
  for (const { speaker } of segments) {
    if (speaker !== null && !names.has(normalizeName(speaker)))
      names.set(normalizeName(speaker), speaker.trim());
  }
  const ids = new Map<string, { id: string; name: string }>();
  const columns = { id: speakers.id, name: speakers.name, normalizedName: speakers.normalizedName };
  const readShared = async (normalizedNames: string[]) => {
    const rows = await tx
      .select(columns)
      .from(speakers)
      .where(
        and(eq(speakers.organizationId, organizationId), inArray(speakers.normalizedName, normalizedNames)),
      )
      .for('share');
    for (const row of rows) ids.set(row.normalizedName, { id: row.id, name: row.name });
  };
  // In name order: transcripts stored at once that create the same new speakers then wait on each
  // other's in the same order, instead of deadlocking.
  const all = [...names.keys()].sort();
  for (let offset = 0; offset < all.length; offset += SPEAKER_BATCH) {
    const batch = all.slice(offset, offset + SPEAKER_BATCH);
    await readShared(batch);
    const missing = batch.filter((normalizedName) => !ids.has(normalizedName));
    if (missing.length === 0) continue;
    const created = await tx
      .insert(speakers)
      .values(
        missing.map((normalizedName) => ({
          organizationId,
          name: names.get(normalizedName) as string,
          normalizedName,
        })),
      )
      .onConflictDoNothing({ target: [speakers.organizationId, speakers.normalizedName] })
      .returning(columns);
    for (const row of created) ids.set(row.normalizedName, { id: row.id, name: row.name });
    // Created meanwhile by another transcript, which has committed: read as the others.
    const raced = missing.filter((normalizedName) => !ids.has(normalizedName));
    if (raced.length > 0) await readShared(raced);
  }
  return ids;
}

/**
 * Cuts a video's stored segments into the passages search and the AI layer read, under the
 * speakers' current names, and counts their words again (a passage names its speakers): after a
 * speaker is renamed. Returns the segments it cut.
 */
export async function rebuildChunks(tx: Tx, video: { id: string; organizationId: string }) {
  await holdVideoPassages(tx, video.id);
  const segments = await transcriptSegmentsOf(tx, video.id);
  await writeChunks(tx, video, buildChunks(segments));
  await indexVideoTerms(tx, video);
  return segments;
}

/**
 * Everything derived from a video's stored segments — its passages, its word counts and its
 * speakers' conversation statistics — computed again (the re-index command; transcripts stored
 * before speaker analytics). A rename needs only the passages and their counts (rebuildChunks).
 */
export async function rebuildDerived(tx: Tx, video: { id: string; organizationId: string }) {
  await storeSpeakerStats(tx, video, await rebuildChunks(tx, video));
}

async function transcriptView(
  db: Db | Tx,
  video: { id: string; transcript: string | null },
): Promise<TranscriptView> {
  return {
    videoId: video.id,
    text: video.transcript,
    format: video.transcript === null ? null : detectFormat(video.transcript),
    segments: await transcriptSegmentsOf(db, video.id),
  };
}

export async function getTranscript(db: Db, userId: string | null, videoId: string): Promise<TranscriptView> {
  const { video } = await requireVideoAccess(db, { videoId, userId, action: 'read' });
  return transcriptView(db, video);
}

/** Replaces a video's transcript from text (any format) or from ready segments (author or admin). */
export async function putTranscript(
  context: AppContext,
  userId: string,
  videoId: string,
  body: PutTranscriptBody,
  detailsPath: string,
): Promise<TranscriptView> {
  return retriedTransaction(context.db, async (tx) => {
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'edit', forUpdate: true });
    const target = {
      id: video.id,
      organizationId: video.organizationId,
      durationSeconds: video.durationSeconds,
    };
    let text: string | null;
    let segmentCount: number;
    if (body.segments) {
      ({ text, segmentCount } = await storeSegmentsTranscript(tx, context, target, body.segments));
    } else {
      text = body.text ?? null;
      ({ segmentCount } = await replaceTranscript(tx, context, {
        video: target,
        text,
        format: body.format,
        detailsPath,
      }));
    }
    await recordActivity(tx, {
      organizationId: video.organizationId,
      actorId: userId,
      action: 'transcript.updated',
      targetType: 'transcript',
      targetId: video.id,
      metadata: { videoId: video.id, title: video.title, segmentCount },
    });
    return transcriptView(tx, { id: video.id, transcript: text });
  });
}

/** The transcript as WebVTT or SRT; a video without one has no subtitles (404). */
export async function getSubtitles(
  db: Db,
  userId: string | null,
  videoId: string,
  format: 'vtt' | 'srt',
): Promise<string> {
  const { video } = await requireVideoAccess(db, { videoId, userId, action: 'read' });
  if (video.transcript === null) throw errors.notFound('This video has no transcript', 'NO_TRANSCRIPT');
  const { segments } = await transcriptView(db, video);
  return format === 'vtt' ? toVtt(segments) : toSrt(segments);
}
