import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { videos, videoViewers } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { hashToken } from '../../lib/crypto.ts';
import { recordActivity } from '../activity/service.ts';
import { requireVideoAccess } from './access.ts';

const VIEW_WINDOW_MS = 30 * 60 * 1000;

export type Viewer =
  | { userId: string }
  /** Someone without an account watching a public video, told apart by address and browser. */
  | { userId: null; ip: string; userAgent: string };

/** A signed-in viewer is their user id; an anonymous one a hash, so no address is stored. */
const viewerKey = (viewer: Viewer) =>
  viewer.userId ?? hashToken(`anonymous-viewer\n${viewer.ip}\n${viewer.userAgent}`);

type ViewerState = { lastCountedAt: Date; position: number | null };

/**
 * The viewer's row, locked for this transaction; created (as counted now) when it is their first
 * view. Concurrent first views of one viewer: one inserts, the others wait for its row.
 */
async function lockViewer(
  tx: Tx,
  row: { videoId: string; viewerKey: string; userId: string | null; now: Date; position: number | null },
): Promise<{ created: boolean; state: ViewerState }> {
  const select = () =>
    tx
      .select({ lastCountedAt: videoViewers.lastCountedAt, position: videoViewers.position })
      .from(videoViewers)
      .where(and(eq(videoViewers.videoId, row.videoId), eq(videoViewers.viewerKey, row.viewerKey)))
      .for('update');
  const [existing] = await select();
  if (existing) return { created: false, state: existing };
  const [inserted] = await tx
    .insert(videoViewers)
    .values({ ...row, lastCountedAt: row.now, updatedAt: row.now })
    .onConflictDoNothing()
    .returning({ lastCountedAt: videoViewers.lastCountedAt, position: videoViewers.position });
  if (inserted) return { created: true, state: inserted };
  const [raced] = await select();
  // Inserted by the other view, then gone with its video: deleted while this view was counted.
  if (!raced) throw errors.notFound('Video not found');
  return { created: false, state: raced };
}

/** Counts a view unless this viewer was counted in the last 30 minutes, and keeps their position. */
export async function recordView(
  context: AppContext,
  input: { videoId: string; viewer: Viewer; position: number | undefined },
) {
  return context.db.transaction(async (tx) => {
    const { video } = await requireVideoAccess(tx, {
      videoId: input.videoId,
      userId: input.viewer.userId,
      action: 'read',
    });
    const given = input.position ?? null;
    if (given !== null && video.durationSeconds !== null && given > video.durationSeconds) {
      throw errors.validation([{ path: 'body.position', message: 'must not be past the end of the video' }]);
    }
    const now = context.clock.now();
    const viewer = { videoId: video.id, viewerKey: viewerKey(input.viewer), userId: input.viewer.userId };
    const { created, state } = await lockViewer(tx, { ...viewer, now, position: given });
    const counted = created || state.lastCountedAt.getTime() <= now.getTime() - VIEW_WINDOW_MS;
    const position = given ?? state.position;
    if (!created) {
      await tx
        .update(videoViewers)
        .set({ lastCountedAt: counted ? now : state.lastCountedAt, position, updatedAt: now })
        .where(and(eq(videoViewers.videoId, viewer.videoId), eq(videoViewers.viewerKey, viewer.viewerKey)));
    }
    let viewCount = video.viewCount;
    if (counted) {
      const [bumped] = await tx
        .update(videos)
        .set({ viewCount: sql`${videos.viewCount} + 1` })
        .where(eq(videos.id, video.id))
        .returning({ viewCount: videos.viewCount });
      viewCount = bumped?.viewCount ?? viewCount;
      await recordActivity(tx, {
        organizationId: video.organizationId,
        actorId: input.viewer.userId,
        action: 'video.viewed',
        targetType: 'video',
        targetId: video.id,
      });
    }
    return { videoId: video.id, viewCount, counted, position };
  });
}
