import { asc, count, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { clips } from '../../db/schema/index.ts';
import { AppError, type ErrorDetail, errors } from '../../http/errors.ts';
import { type PageRequest, pageBounds, toPage } from '../../http/pagination.ts';
import { recordActivity } from '../activity/service.ts';
import { requireContentAccess } from '../channels/access.ts';
import { changedFields } from '../channels/service.ts';
import { requireRole } from '../organizations/access.ts';
import { requireVideoAccess } from '../videos/access.ts';
import type { ClipView, CreateClipInput, UpdateClipInput } from './schemas.ts';

const NOT_FOUND = 'Clip not found';
const EXCERPT_MAX = 2000;

/**
 * A clips column qualified by its table: Drizzle renders bare column names, which inside a
 * subquery would resolve to the subquery's own columns.
 */
const outer = (column: AnyPgColumn) => sql`${clips}.${sql.identifier(column.name)}`;

/**
 * The transcript of a clip's range: the segments overlapping it in order, the speaker named
 * where a turn starts. One correlated subquery per clip row (index-backed by video_id), so a page
 * of clips is still one query. '' when the video has a transcript but nothing in the range.
 */
const transcriptExcerpt = sql<string | null>`(
  select coalesce(
    case when length(excerpt.body) > ${EXCERPT_MAX} then left(excerpt.body, ${EXCERPT_MAX - 1}) || '…'
      else excerpt.body end,
    case when exists (select 1 from transcript_segments any_segment where any_segment.video_id = ${outer(clips.videoId)})
      then '' end)
  from (
    select string_agg(
      case when turn.speaker is not null and turn.speaker is distinct from turn.previous_speaker
        then turn.speaker || ': ' || turn.text else turn.text end,
      ' ' order by turn.index) as body
    from (
      select segment.index, segment.text,
        coalesce(speaker.name, segment.speaker_label) as speaker,
        lag(coalesce(speaker.name, segment.speaker_label)) over (order by segment.index) as previous_speaker
      from transcript_segments segment
      left join speakers speaker on speaker.id = segment.speaker_id
      where segment.video_id = ${outer(clips.videoId)}
        and segment.start_seconds < ${outer(clips.endTime)}
        and segment.end_seconds > ${outer(clips.startTime)}
    ) turn
  ) excerpt
)`;

const selectClips = (db: Db | Tx) =>
  db
    .select({
      id: clips.id,
      videoId: clips.videoId,
      organizationId: clips.organizationId,
      title: clips.title,
      description: clips.description,
      startTime: clips.startTime,
      endTime: clips.endTime,
      duration: sql<number>`${clips.endTime} - ${clips.startTime}`.mapWith(Number),
      transcriptExcerpt,
      createdBy: clips.createdBy,
      createdAt: clips.createdAt,
      updatedAt: clips.updatedAt,
    })
    .from(clips)
    .$dynamic();

async function clipView(db: Db | Tx, clipId: string): Promise<ClipView> {
  const [view] = await selectClips(db).where(eq(clips.id, clipId));
  if (!view) throw errors.notFound(NOT_FOUND);
  return view;
}

/** A video the caller cannot see makes its clips invisible too, under the clip's own message. */
async function asClipNotFound<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 404) throw errors.notFound(NOT_FOUND);
    throw error;
  }
}

/**
 * 0 ≤ start < end ≤ the video's duration when known; each broken rule is reported on the field
 * the caller sent (a PATCH may move only one end).
 */
function checkRange(
  range: { startTime: number; endTime: number },
  durationSeconds: number | null,
  sent: { endTime: boolean },
) {
  const details: ErrorDetail[] = [];
  if (range.startTime >= range.endTime) {
    details.push(
      sent.endTime
        ? { path: 'body.endTime', message: `must be greater than startTime (${range.startTime})` }
        : { path: 'body.startTime', message: `must be less than endTime (${range.endTime})` },
    );
  }
  if (durationSeconds !== null && range.endTime > durationSeconds) {
    details.push({
      path: 'body.endTime',
      message: `must be at most the video's duration (${durationSeconds} seconds)`,
    });
  }
  if (details.length > 0) throw errors.validation(details);
}

/** Adds a clip to a video: members and above of its organization (viewers 403, outsiders 404). */
export async function createClip(
  context: AppContext,
  userId: string,
  videoId: string,
  input: CreateClipInput,
) {
  return context.db.transaction(async (tx) => {
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'contribute' });
    await requireRole(tx, { userId, organizationId: video.organizationId, minRole: 'member' });
    checkRange(input, video.durationSeconds, { endTime: true });
    const now = context.clock.now();
    const [created] = await tx
      .insert(clips)
      .values({
        videoId,
        organizationId: video.organizationId,
        title: input.title,
        description: input.description ?? null,
        startTime: input.startTime,
        endTime: input.endTime,
        createdBy: userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: clips.id });
    if (!created) throw new Error('clip insert returned nothing');
    await recordActivity(tx, {
      organizationId: video.organizationId,
      actorId: userId,
      action: 'clip.created',
      targetType: 'clip',
      targetId: created.id,
      metadata: { videoId, title: input.title, startTime: input.startTime, endTime: input.endTime },
    });
    return clipView(tx, created.id);
  });
}

/** The clips of a video the caller may read (anyone for a public video), by start time. */
export async function listVideoClips(db: Db, userId: string | null, videoId: string, page: PageRequest) {
  await requireVideoAccess(db, { videoId, userId, action: 'read' });
  const { limit, offset } = pageBounds(page);
  const [rows, [counted]] = await Promise.all([
    selectClips(db)
      .where(eq(clips.videoId, videoId))
      .orderBy(asc(clips.startTime), asc(clips.id))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(clips).where(eq(clips.videoId, videoId)),
  ]);
  return toPage(rows, counted?.total ?? 0, page);
}

/** A clip, to anyone when its video is public and not deleted, else to members only. */
export async function getClip(db: Db, userId: string | null, clipId: string) {
  const view = await clipView(db, clipId);
  await asClipNotFound(requireVideoAccess(db, { videoId: view.videoId, userId, action: 'read' }));
  return view;
}

/**
 * Loads a clip for a change by its creator (member or above) or an admin, locked for the
 * transaction. Everyone else gets the 404 of an unknown clip: the spec lists no 403 for clips.
 */
async function requireEditableClip(tx: Tx, userId: string, clipId: string) {
  const [clip] = await tx.select().from(clips).where(eq(clips.id, clipId)).for('update');
  if (!clip) throw errors.notFound(NOT_FOUND);
  const { video } = await asClipNotFound(
    requireVideoAccess(tx, { videoId: clip.videoId, userId, action: 'contribute' }),
  );
  try {
    await requireContentAccess(tx, {
      userId,
      organizationId: clip.organizationId,
      createdBy: clip.createdBy,
      action: 'edit',
      notFoundMessage: NOT_FOUND,
    });
  } catch (error) {
    if (error instanceof AppError && error.statusCode === 403) throw errors.notFound(NOT_FOUND);
    throw error;
  }
  return { clip, video };
}

/** `null` leaves title and times unchanged and clears the description. */
export async function updateClip(
  context: AppContext,
  userId: string,
  clipId: string,
  input: UpdateClipInput,
) {
  return context.db.transaction(async (tx) => {
    const { clip, video } = await requireEditableClip(tx, userId, clipId);
    const startTime = input.startTime ?? clip.startTime;
    const endTime = input.endTime ?? clip.endTime;
    checkRange({ startTime, endTime }, video.durationSeconds, { endTime: input.endTime != null });
    const title = input.title ?? clip.title;
    await tx
      .update(clips)
      .set({
        title,
        description: input.description === undefined ? clip.description : input.description,
        startTime,
        endTime,
        updatedAt: context.clock.now(),
      })
      .where(eq(clips.id, clipId));
    await recordActivity(tx, {
      organizationId: clip.organizationId,
      actorId: userId,
      action: 'clip.updated',
      targetType: 'clip',
      targetId: clipId,
      metadata: { videoId: clip.videoId, title, changed: changedFields(input) },
    });
    return clipView(tx, clipId);
  });
}

export async function deleteClip(context: AppContext, userId: string, clipId: string) {
  await context.db.transaction(async (tx) => {
    const { clip } = await requireEditableClip(tx, userId, clipId);
    await tx.delete(clips).where(eq(clips.id, clipId));
    await recordActivity(tx, {
      organizationId: clip.organizationId,
      actorId: userId,
      action: 'clip.deleted',
      targetType: 'clip',
      targetId: clipId,
      metadata: { videoId: clip.videoId, title: clip.title },
    });
  });
  return { id: clipId, deleted: true as const };
}
