import { rm } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { type TranscriptStatus, videoMedia, videos } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { clockDuration } from '../../lib/duration.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { toVideoView } from '../videos/schemas.ts';
import { probeRecording } from './probe.ts';
import type { MediaView } from './schemas.ts';
import { type MediaStore, mediaKey } from './storage.ts';
import { type Received, receiveRecording } from './upload.ts';
import { mediaUrl } from './urls.ts';

export const MEDIA_TRANSCRIPTION_JOB = 'media-transcription';

/** What media needs besides the request: the store its files live in. */
export type MediaContext = AppContext & { store: MediaStore };

const toMediaView = (row: typeof videoMedia.$inferSelect, url: string) => ({
  url,
  contentType: row.contentType,
  container: row.container,
  codec: row.codec,
  bytes: row.bytes,
  durationSeconds: row.durationSeconds,
  sha256: row.sha256,
  createdAt: row.createdAt,
});

/**
 * Stores a recording for a video the caller may edit (its author, or an admin): checked before a
 * byte is read, then streamed to the store, typed by its content, measured from its container.
 * The video takes the recording's length and plays it (`videoUrl`); without a transcript it is
 * queued for transcription when a provider is configured. A replaced recording's file is removed
 * once the new one is in place; a refused upload leaves nothing behind.
 */
export async function attachRecording(
  context: MediaContext,
  userId: string,
  videoId: string,
  request: FastifyRequest,
): Promise<MediaView> {
  await requireVideoAccess(context.db, { videoId, userId, action: 'edit' });
  const received = await receiveRecording(request, context.store, context.config.media.maxBytes);
  return attachReceived(context, userId, videoId, received);
}

/**
 * Makes a received file (a form's, or a finished resumable upload's) the video's recording, as
 * attachRecording describes; the file is consumed either way (moved into the store, or removed).
 */
export async function attachReceived(
  context: MediaContext,
  userId: string,
  videoId: string,
  received: Received,
): Promise<MediaView> {
  const { transcription } = context.config.media;
  let published: string | undefined;
  let result: { view: MediaView; replaced: string | undefined };
  try {
    const probed = await probeRecording(received.file, received.bytes);
    const key = mediaKey(videoId, probed.extension);
    await context.store.publish(received.file, key, probed.contentType);
    published = key;
    result = await context.db.transaction(async (tx) => {
      const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'edit', forUpdate: true });
      const [previous] = await tx.select().from(videoMedia).where(eq(videoMedia.videoId, videoId));
      const now = context.clock.now();
      const values = {
        storageKey: key,
        contentType: probed.contentType,
        container: probed.container,
        codec: probed.codec,
        bytes: received.bytes,
        durationSeconds: probed.durationSeconds,
        sha256: received.sha256,
        transcriptionAttempts: 0,
        updatedAt: now,
      };
      const [row] = await tx
        .insert(videoMedia)
        .values({ videoId, ...values })
        .onConflictDoUpdate({ target: videoMedia.videoId, set: { ...values, createdAt: now } })
        .returning();
      // A video with a transcript keeps it; one without is transcribed, when a provider is set.
      const transcribe =
        transcription.provider !== 'none' &&
        (video.transcriptStatus === 'none' || video.transcriptStatus === 'failed');
      const status: TranscriptStatus = transcribe ? 'queued' : video.transcriptStatus;
      const [updated] = await tx
        .update(videos)
        .set({
          videoUrl: mediaUrl(context, videoId),
          duration: clockDuration(Math.round(probed.durationSeconds)),
          durationSeconds: probed.durationSeconds,
          transcriptStatus: status,
          transcriptError: transcribe ? null : video.transcriptError,
          updatedAt: now,
        })
        .where(eq(videos.id, videoId))
        .returning();
      if (!row || !updated) throw errors.notFound('Video not found');
      if (transcribe) await context.jobs.send(MEDIA_TRANSCRIPTION_JOB, { videoId, storageKey: key }, { tx });
      return {
        view: { ...toMediaView(row, mediaUrl(context, videoId)), video: toVideoView(updated) },
        replaced: previous?.storageKey,
      };
    });
  } catch (error) {
    await rm(received.file, { force: true });
    if (published) await context.store.remove(published);
    throw error;
  }
  // Committed: the new file is the recording. Should removing the old one fail, the sweep will.
  const { view, replaced } = result;
  if (replaced && replaced !== published) await context.store.remove(replaced).catch(() => {});
  return view;
}

/**
 * The stored recording of a video the caller may watch (a member, or anyone for a public video),
 * as the store serves it. 404 when the video holds no recording.
 */
export async function recordingOf(context: MediaContext, userId: string | null, videoId: string) {
  await requireVideoAccess(context.db, { videoId, userId, action: 'read' });
  return storedRecording(context, videoId);
}

/** A video's stored recording as the store serves it, whoever may play it. */
export async function storedRecording(context: MediaContext, videoId: string) {
  const [row] = await context.db.select().from(videoMedia).where(eq(videoMedia.videoId, videoId));
  if (!row) throw errors.notFound('This video has no stored recording');
  return {
    playback: await context.store.playback(row.storageKey),
    contentType: row.contentType,
    bytes: row.bytes,
  };
}

/**
 * A `Range` none of whose bytes the recording has (it starts past the end, or asks for the last
 * 0 bytes): 416 with the length, as RFC 9110 says. Other ranges are served as asked.
 */
export function assertSatisfiable(range: string | undefined, bytes: number) {
  const first = range && /^bytes=\s*(\d*)-(\d*)/.exec(range);
  if (!first) return;
  const [, start, end] = first;
  const unsatisfiable = start ? Number(start) >= bytes : end === '0';
  if (unsatisfiable) {
    throw new AppError(416, 'RANGE_NOT_SATISFIABLE', `The range is outside the recording (${bytes} bytes)`, {
      headers: { 'content-range': `bytes */${bytes}` },
    });
  }
}
