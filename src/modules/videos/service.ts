import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { retriedTransaction } from '../../db/errors.ts';
import {
  channelFollows,
  channels,
  collections,
  memberships,
  organizations,
  series,
  videos,
} from '../../db/schema/index.ts';
import { type ErrorDetail, errors } from '../../http/errors.ts';
import { durationToSeconds } from '../../lib/duration.ts';
import { truncate } from '../../lib/text.ts';
import { recordActivity } from '../activity/service.ts';
import type { SameTripRow } from '../auth/sessions.ts';
import { assertVideoAllowed } from '../billing/state.ts';
import { queueIntegrationEvent } from '../integrations/events.ts';
import { notify } from '../notifications/notify.ts';
import { requireRole } from '../organizations/access.ts';
import { replaceTranscript, type TranscriptWriteContext as WriteContext } from '../transcripts/service.ts';
import { requireVideoAccess, type VideoRow } from './access.ts';
import { type CreateVideoInput, toVideoView, type UpdateVideoInput } from './schemas.ts';

type References = Pick<CreateVideoInput, 'channelId' | 'collectionId' | 'seriesId'>;

const REFERENCE_TABLES = [
  ['channelId', channels, 'channel'],
  ['seriesId', series, 'series'],
  ['collectionId', collections, 'collection'],
] as const;

/**
 * Every channel, series and collection named must belong to the video's organization: another
 * organization's is answered exactly like an unknown one (400), so ids do not leak across.
 * The collection row is locked, so that concurrent appends get distinct positions.
 */
async function assertReferences(tx: Tx, organizationId: string, input: References) {
  const details: ErrorDetail[] = [];
  for (const [field, table, noun] of REFERENCE_TABLES) {
    const id = input[field];
    if (!id) continue;
    const query = tx
      .select({ id: table.id })
      .from(table)
      .where(and(eq(table.id, id), eq(table.organizationId, organizationId)));
    const [found] = field === 'collectionId' ? await query.for('update') : await query;
    if (!found)
      details.push({ path: `body.${field}`, message: `must be a ${noun} of the video's organization` });
  }
  if (details.length > 0) throw errors.validation(details);
}

/** Position after the last video of the collection (positions count from 0): new members are appended. */
async function nextCollectionPosition(tx: Tx, collectionId: string): Promise<number> {
  const [row] = await tx
    .select({ next: sql<number>`coalesce(max(${videos.collectionPosition}) + 1, 0)` })
    .from(videos)
    .where(eq(videos.collectionId, collectionId));
  return row?.next ?? 0;
}

/**
 * Parses the transcript into segments and speakers (null removes them). That rewrites the row's
 * transcript and updatedAt, so the row is read back. A stored transcript is announced to
 * integrations as `transcript.ready`, as PUT /videos/{id}/transcript announces it.
 */
async function storeTranscript(
  tx: Tx,
  context: WriteContext,
  input: { video: VideoRow; text: string | null; actorId: string },
) {
  const { id, organizationId, durationSeconds } = input.video;
  const { segmentCount } = await replaceTranscript(tx, context, {
    video: { id, organizationId, durationSeconds },
    text: input.text,
  });
  const [stored] = await tx.select().from(videos).where(eq(videos.id, id));
  if (!stored) throw errors.notFound('Video not found');
  if (input.text !== null) {
    await queueIntegrationEvent(tx, {
      organizationId,
      type: 'transcript.ready',
      data: {
        object: 'transcript',
        id,
        videoId: id,
        title: stored.title,
        segmentCount,
        organizationId,
        actorId: input.actorId,
      },
    });
  }
  return stored;
}

/** A video event of the caller, in the video's organization. */
const recordVideoActivity = (
  tx: Tx,
  userId: string,
  action: string,
  video: Pick<VideoRow, 'id' | 'organizationId'>,
  metadata: Record<string, unknown>,
) =>
  recordActivity(tx, {
    organizationId: video.organizationId,
    actorId: userId,
    action,
    targetType: 'video',
    targetId: video.id,
    metadata,
  });

const NOTIFICATION_BODY_MAX = 200;

/**
 * Tells the followers of the channel a video has just entered, those still members of the
 * video's organization (a follow outlives a membership), except whoever put it there.
 */
async function notifyChannelFollowers(tx: Tx, context: WriteContext, actorId: string, video: VideoRow) {
  if (!video.channelId) return;
  const followers = await tx
    .select({ id: channelFollows.userId, channelName: channels.name })
    .from(channelFollows)
    .innerJoin(channels, eq(channels.id, channelFollows.channelId))
    .innerJoin(
      memberships,
      and(
        eq(memberships.userId, channelFollows.userId),
        eq(memberships.organizationId, video.organizationId),
      ),
    )
    .where(eq(channelFollows.channelId, video.channelId));
  const channelName = followers[0]?.channelName;
  if (channelName === undefined) return;
  await notify(tx, context, {
    type: 'channel_video',
    recipientIds: followers.map((follower) => follower.id),
    organizationId: video.organizationId,
    actorId,
    title: `New video in #${channelName}: "${video.title}"`,
    body: truncate(video.description ?? '', NOTIFICATION_BODY_MAX),
    targetType: 'video',
    targetId: video.id,
    data: { videoId: video.id, channelId: video.channelId },
  });
}

/**
 * Creates a video in the caller's transaction, with everything that rides along: the plan's
 * limit, its transcript (segments, speakers, passages, the extraction and embedding jobs), the
 * `video.created` activity and the channel's followers told. The bulk import creates each file's
 * video this way, in the transaction that also records the file's outcome.
 */
export async function createVideoIn(tx: Tx, context: WriteContext, userId: string, input: CreateVideoInput) {
  await requireRole(tx, { userId, organizationId: input.organizationId, minRole: 'member' });
  await assertReferences(tx, input.organizationId, input);
  await assertVideoAllowed(tx, context.config, input.organizationId);
  const now = context.clock.now();
  const [inserted] = await tx
    .insert(videos)
    .values({
      organizationId: input.organizationId,
      authorId: userId,
      title: input.title,
      description: input.description ?? null,
      duration: input.duration,
      durationSeconds: durationToSeconds(input.duration),
      thumbnailUrl: input.thumbnailUrl ?? null,
      videoUrl: input.videoUrl ?? null,
      transcript: input.transcript ?? null,
      aiSummary: input.aiSummary ?? null,
      isPublic: input.isPublic ?? false,
      channelId: input.channelId ?? null,
      seriesId: input.seriesId ?? null,
      collectionId: input.collectionId ?? null,
      collectionPosition: input.collectionId ? await nextCollectionPosition(tx, input.collectionId) : null,
      recordedAt: input.recordedAt ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!inserted) throw new Error('video insert returned nothing');
  const video =
    input.transcript != null
      ? await storeTranscript(tx, context, { video: inserted, text: input.transcript, actorId: userId })
      : inserted;
  await recordVideoActivity(tx, userId, 'video.created', video, { title: video.title });
  await notifyChannelFollowers(tx, context, userId, video);
  return toVideoView(video);
}

export async function createVideo(context: AppContext, userId: string, input: CreateVideoInput) {
  return context.db.transaction((tx) => createVideoIn(tx, context, userId, input));
}

export async function getVideo(
  db: Db,
  userId: string | null,
  videoId: string,
  readAlongside?: SameTripRow | undefined,
) {
  const { video } = await requireVideoAccess(db, { videoId, userId, action: 'read', readAlongside });
  return toVideoView(video);
}

const sameValue = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;

/** The fields of `input` whose value differs from the video's. */
function changedFields(video: VideoRow, input: UpdateVideoInput): Partial<UpdateVideoInput> {
  return Object.fromEntries(
    Object.entries(input).filter(
      ([field, value]) => value !== undefined && !sameValue(video[field as keyof VideoRow], value),
    ),
  );
}

/** Author or admin. `null` clears a nullable field; only what actually changes is written and logged. */
export async function updateVideo(
  context: AppContext,
  userId: string,
  videoId: string,
  input: UpdateVideoInput,
) {
  return retriedTransaction(context.db, async (tx) => {
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'edit', forUpdate: true });
    const changes = changedFields(video, input);
    const fields = Object.keys(changes);
    if (fields.length === 0) return toVideoView(video);
    await assertReferences(tx, video.organizationId, changes);
    const derived: Partial<VideoRow> = {};
    if (changes.duration !== undefined) derived.durationSeconds = durationToSeconds(changes.duration);
    if (changes.collectionId !== undefined) {
      derived.collectionPosition = changes.collectionId
        ? await nextCollectionPosition(tx, changes.collectionId)
        : null;
    }
    const [written] = await tx
      .update(videos)
      .set({ ...changes, ...derived, updatedAt: context.clock.now() })
      .where(eq(videos.id, videoId))
      .returning();
    if (!written) throw errors.notFound('Video not found');
    const updated =
      changes.transcript !== undefined
        ? await storeTranscript(tx, context, { video: written, text: changes.transcript, actorId: userId })
        : written;
    await recordVideoActivity(tx, userId, 'video.updated', updated, { title: updated.title, fields });
    // changedFields keeps only a channelId that differs: the video has just moved into this channel.
    if (changes.channelId) await notifyChannelFollowers(tx, context, userId, updated);
    return toVideoView(updated);
  });
}

/** Moves the video to the deleted videos, kept for the organization's retention period, then purged. */
export async function softDeleteVideo(context: AppContext, userId: string, videoId: string) {
  return context.db.transaction(async (tx) => {
    await requireVideoAccess(tx, { videoId, userId, action: 'edit', forUpdate: true });
    const now = context.clock.now();
    const retentionDays = tx
      .select({ days: organizations.retentionDays })
      .from(organizations)
      .where(eq(organizations.id, videos.organizationId));
    const [deleted] = await tx
      .update(videos)
      .set({
        isDeleted: true,
        deletedAt: now,
        retentionUntil: sql`${now}::timestamptz + make_interval(days => (${retentionDays}))`,
        updatedAt: now,
      })
      .where(eq(videos.id, videoId))
      .returning();
    if (!deleted) throw errors.notFound('Video not found');
    await recordVideoActivity(tx, userId, 'video.deleted', deleted, {
      title: deleted.title,
      permanent: false,
      retentionUntil: deleted.retentionUntil?.toISOString(),
    });
    return toVideoView(deleted);
  });
}

/** Removes a video (deleted or not) for good, with everything that hangs off it. */
export async function permanentlyDeleteVideo(context: AppContext, userId: string, videoId: string) {
  return context.db.transaction(async (tx) => {
    const { video } = await requireVideoAccess(tx, {
      videoId,
      userId,
      action: 'edit',
      includeDeleted: true,
      forUpdate: true,
    });
    await tx.delete(videos).where(eq(videos.id, videoId));
    await recordVideoActivity(tx, userId, 'video.deleted', video, { title: video.title, permanent: true });
    return { id: video.id, deleted: true as const };
  });
}

export async function restoreVideo(context: AppContext, userId: string, videoId: string) {
  return context.db.transaction(async (tx) => {
    const { video } = await requireVideoAccess(tx, {
      videoId,
      userId,
      action: 'edit',
      includeDeleted: true,
      forUpdate: true,
    });
    if (!video.isDeleted) throw errors.badRequest('The video is not deleted', 'VIDEO_NOT_DELETED');
    const [restored] = await tx
      .update(videos)
      .set({ isDeleted: false, deletedAt: null, retentionUntil: null, updatedAt: context.clock.now() })
      .where(eq(videos.id, videoId))
      .returning();
    if (!restored) throw errors.notFound('Video not found');
    await recordVideoActivity(tx, userId, 'video.restored', restored, { title: restored.title });
    return toVideoView(restored);
  });
}
