import { and, eq, not, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { playlistCompletions, playlistProgress, videos } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { recordActivity } from '../activity/service.ts';
import { type CollectionRow, requireCollectionAccess } from './access.ts';
import type { ProgressInput, ProgressView } from './schemas.ts';
import { playlistOrder } from './service.ts';

/**
 * Per-user progress through a playlist. Completions are rows of their own (inserted with ON
 * CONFLICT DO NOTHING) and the "where am I" row is an upsert, so concurrent calls of one user
 * never lose a completion. Counts are always taken over the playlist as it is now: videos removed
 * from it or deleted drop out (their completions come back if they return).
 */

type Item = { id: string; completed: boolean };

/** Any member of the collection's organization, viewers included; outsiders 403 as the spec lists. */
async function requirePlaylist(db: Db | Tx, userId: string, collectionId: string) {
  const { collection } = await requireCollectionAccess(db, {
    collectionId,
    userId,
    action: 'read',
    outsider: 'forbidden',
  });
  if (collection.type !== 'playlist') {
    throw errors.badRequest(
      'Progress is kept for playlists only; this collection is a folder',
      'NOT_A_PLAYLIST',
    );
  }
  return collection;
}

async function playlistItems(db: Db | Tx, collectionId: string, userId: string): Promise<Item[]> {
  return db
    .select({ id: videos.id, completed: sql<boolean>`${playlistCompletions.videoId} is not null` })
    .from(videos)
    .leftJoin(
      playlistCompletions,
      and(
        eq(playlistCompletions.collectionId, collectionId),
        eq(playlistCompletions.userId, userId),
        eq(playlistCompletions.videoId, videos.id),
      ),
    )
    .where(and(eq(videos.collectionId, collectionId), not(videos.isDeleted)))
    .orderBy(...playlistOrder);
}

async function progressOf(db: Db | Tx, collection: CollectionRow, userId: string): Promise<ProgressView> {
  const items = await playlistItems(db, collection.id, userId);
  const [state] = await db
    .select()
    .from(playlistProgress)
    .where(and(eq(playlistProgress.collectionId, collection.id), eq(playlistProgress.userId, userId)));
  const completedVideoIds = items.filter((item) => item.completed).map((item) => item.id);
  const stillListed = state?.lastVideoId ? items.some((item) => item.id === state.lastVideoId) : false;
  return {
    collectionId: collection.id,
    userId,
    totalCount: items.length,
    completedCount: completedVideoIds.length,
    percentComplete:
      items.length === 0 ? 0 : Math.round((completedVideoIds.length * 1000) / items.length) / 10,
    completedVideoIds,
    currentVideoId: items.find((item) => !item.completed)?.id ?? null,
    lastVideoId: stillListed ? (state?.lastVideoId ?? null) : null,
    lastPosition: stillListed ? (state?.lastPosition ?? null) : null,
    updatedAt: state?.updatedAt ?? null,
  };
}

export async function getPlaylistProgress(db: Db, userId: string, collectionId: string) {
  return progressOf(db, await requirePlaylist(db, userId, collectionId), userId);
}

/**
 * `completed: true` completes `videoId` (default: the current video), `completed: false` un-marks
 * it. Unless it only un-marks, the call also records the video as the last one, at `position`
 * (or null): an empty body says "I am on the current video".
 */
export async function updatePlaylistProgress(
  context: AppContext,
  userId: string,
  collectionId: string,
  input: ProgressInput,
) {
  return context.db.transaction(async (tx) => {
    const collection = await requirePlaylist(tx, userId, collectionId);
    const items = await playlistItems(tx, collectionId, userId);
    if (input.videoId !== undefined && !items.some((item) => item.id === input.videoId)) {
      throw new AppError(400, 'VIDEO_NOT_IN_PLAYLIST', 'Invalid request', {
        details: [{ path: 'body.videoId', message: 'is not a video of this playlist' }],
      });
    }
    const videoId = input.videoId ?? items.find((item) => !item.completed)?.id;
    if (!videoId) {
      throw errors.badRequest(
        'Every video of the playlist is completed (or it is empty); name a videoId',
        'NO_CURRENT_VIDEO',
      );
    }

    if (input.completed === true) {
      await tx
        .insert(playlistCompletions)
        .values({ collectionId, userId, videoId, completedAt: context.clock.now() })
        .onConflictDoNothing();
    } else if (input.completed === false) {
      await tx
        .delete(playlistCompletions)
        .where(
          and(
            eq(playlistCompletions.collectionId, collectionId),
            eq(playlistCompletions.userId, userId),
            eq(playlistCompletions.videoId, videoId),
          ),
        );
    }

    const now = context.clock.now();
    const recordsPlace = input.completed !== false || input.position !== undefined;
    const place = recordsPlace ? { lastVideoId: videoId, lastPosition: input.position ?? null } : {};
    await tx
      .insert(playlistProgress)
      .values({ collectionId, userId, ...place, updatedAt: now })
      .onConflictDoUpdate({
        target: [playlistProgress.collectionId, playlistProgress.userId],
        set: { ...place, updatedAt: now },
      });
    await recordActivity(tx, {
      organizationId: collection.organizationId,
      actorId: userId,
      action: 'progress.updated',
      targetType: 'progress',
      targetId: collectionId,
      metadata: { videoId, completed: input.completed ?? null, position: input.position ?? null },
    });
    return progressOf(tx, collection, userId);
  });
}
