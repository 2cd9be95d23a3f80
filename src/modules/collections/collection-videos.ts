import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Tx } from '../../db/client.ts';
import { collections, videos } from '../../db/schema/index.ts';
import { AppError, errors } from '../../http/errors.ts';
import { recordActivity } from '../activity/service.ts';
import { requireVideoAccess } from '../videos/access.ts';
import { type CollectionRow, collectionNotFound, requireCollectionAccess } from './access.ts';
import { collectionWithVideos, playlistOrder } from './service.ts';

/**
 * Membership of videos in collections. A video is in at most one collection, at a position; the
 * positions of a collection are dense (0..n-1, soft-deleted videos keep their place so a restore
 * puts them back). Every change locks the collection rows involved, in id order, so concurrent
 * edits of one collection serialise and edits spanning two cannot deadlock.
 */

type Entry = { id: string; isDeleted: boolean };

async function lockCollections(tx: Tx, ids: string[]): Promise<CollectionRow[]> {
  return tx
    .select()
    .from(collections)
    .where(inArray(collections.id, [...new Set(ids)]))
    .orderBy(asc(collections.id))
    .for('update');
}

async function entriesOf(tx: Tx, collectionId: string): Promise<Entry[]> {
  return tx
    .select({ id: videos.id, isDeleted: videos.isDeleted })
    .from(videos)
    .where(eq(videos.collectionId, collectionId))
    .orderBy(...playlistOrder);
}

/** Writes positions 0..n-1 in the order given, touching only rows whose position changes. */
async function writePositions(tx: Tx, ids: string[]) {
  if (ids.length === 0) return;
  // The ids are validated UUIDs, so an array literal is safe and keeps this one statement.
  const list = `{${ids.join(',')}}`;
  await tx.execute(sql`
    update ${videos} set collection_position = (v.ordinal - 1)::int
    from unnest(${list}::uuid[]) with ordinality as v(id, ordinal)
    where ${videos.id} = v.id and ${videos.collectionPosition} is distinct from (v.ordinal - 1)::int`);
}

async function touch(tx: Tx, collectionIds: string[], now: Date) {
  await tx.update(collections).set({ updatedAt: now }).where(inArray(collections.id, collectionIds));
}

/**
 * Puts a video of the same organization into the collection at `position` (counted among the
 * videos the caller sees; default: the end), moving it out of any other collection.
 */
export async function addVideoToCollection(
  context: AppContext,
  userId: string,
  collectionId: string,
  input: { videoId: string; position?: number | undefined },
) {
  return context.db.transaction(async (tx) => {
    const { collection } = await requireCollectionAccess(tx, { collectionId, userId, action: 'edit' });
    // Filing a video moves it out of any other collection: the caller must be allowed to change it,
    // as `PATCH /videos/{id}` with a collectionId requires.
    const { video } = await requireVideoAccess(tx, { videoId: input.videoId, userId, action: 'edit' });
    if (video.organizationId !== collection.organizationId) {
      throw errors.badRequest(
        'The video belongs to another organization than the collection',
        'VIDEO_OTHER_ORGANIZATION',
      );
    }
    const from = video.collectionId;
    const locked = await lockCollections(tx, from ? [collectionId, from] : [collectionId]);
    const target = locked.find((row) => row.id === collectionId);
    if (!target) throw collectionNotFound();
    const [current] = await tx
      .select({ collectionId: videos.collectionId })
      .from(videos)
      .where(eq(videos.id, video.id))
      .for('update');
    if (!current || current.collectionId !== from) {
      throw errors.conflict('The video was moved at the same time; try again', 'CONCURRENT_CHANGE');
    }

    const entries = (await entriesOf(tx, collectionId)).filter((entry) => entry.id !== video.id);
    const visible = entries.filter((entry) => !entry.isDeleted);
    const position = input.position ?? visible.length;
    if (position > visible.length) {
      throw new AppError(400, 'INVALID_POSITION', 'Invalid request', {
        details: [{ path: 'body.position', message: `must be between 0 and ${visible.length}` }],
      });
    }
    const before = visible[position];
    const at = before ? entries.indexOf(before) : entries.length;
    entries.splice(at, 0, { id: video.id, isDeleted: false });

    const now = context.clock.now();
    await tx
      .update(videos)
      .set({ collectionId, collectionPosition: null, updatedAt: now })
      .where(eq(videos.id, video.id));
    await writePositions(
      tx,
      entries.map((entry) => entry.id),
    );
    if (from && from !== collectionId) {
      await writePositions(
        tx,
        (await entriesOf(tx, from)).map((entry) => entry.id),
      );
    }
    await touch(tx, from && from !== collectionId ? [collectionId, from] : [collectionId], now);
    await recordActivity(tx, {
      organizationId: collection.organizationId,
      actorId: userId,
      action: 'collection.video_added',
      targetType: 'collection',
      targetId: collectionId,
      metadata: { videoId: video.id, position, fromCollectionId: from },
    });
    return collectionWithVideos(tx, { ...target, updatedAt: now });
  });
}

export async function removeVideoFromCollection(
  context: AppContext,
  userId: string,
  collectionId: string,
  videoId: string,
) {
  return context.db.transaction(async (tx) => {
    const { collection } = await requireCollectionAccess(tx, {
      collectionId,
      userId,
      action: 'edit',
      forUpdate: true,
    });
    const { video } = await requireVideoAccess(tx, { videoId, userId, action: 'contribute' });
    if (video.collectionId !== collectionId) {
      throw errors.notFound('The video is not in this collection', 'VIDEO_NOT_IN_COLLECTION');
    }
    const now = context.clock.now();
    await tx
      .update(videos)
      .set({ collectionId: null, collectionPosition: null, updatedAt: now })
      .where(eq(videos.id, videoId));
    await writePositions(
      tx,
      (await entriesOf(tx, collectionId)).map((entry) => entry.id),
    );
    await touch(tx, [collectionId], now);
    await recordActivity(tx, {
      organizationId: collection.organizationId,
      actorId: userId,
      action: 'collection.video_removed',
      targetType: 'collection',
      targetId: collectionId,
      metadata: { videoId },
    });
    return collectionWithVideos(tx, { ...collection, updatedAt: now });
  });
}

/** A new order for the collection: `videoIds` must be exactly its (non-deleted) videos, each once. */
export async function reorderCollectionVideos(
  context: AppContext,
  userId: string,
  collectionId: string,
  videoIds: string[],
) {
  return context.db.transaction(async (tx) => {
    const { collection } = await requireCollectionAccess(tx, {
      collectionId,
      userId,
      action: 'edit',
      forUpdate: true,
    });
    const entries = await entriesOf(tx, collectionId);
    const visible = new Set(entries.filter((entry) => !entry.isDeleted).map((entry) => entry.id));
    const given = new Set(videoIds);
    const problems = [
      ...(given.size !== videoIds.length ? ['lists a video more than once'] : []),
      ...(videoIds.some((id) => !visible.has(id)) ? ['lists a video that is not in the collection'] : []),
      ...([...visible].some((id) => !given.has(id)) ? ['leaves out a video of the collection'] : []),
    ];
    if (problems.length > 0) {
      throw new AppError(400, 'INVALID_ORDER', 'videoIds must list every video of the collection once', {
        details: problems.map((message) => ({ path: 'body.videoIds', message })),
      });
    }
    // Deleted videos keep their relative order after the visible ones.
    const hidden = entries.filter((entry) => entry.isDeleted).map((entry) => entry.id);
    await writePositions(tx, [...videoIds, ...hidden]);
    const now = context.clock.now();
    await touch(tx, [collectionId], now);
    await recordActivity(tx, {
      organizationId: collection.organizationId,
      actorId: userId,
      action: 'collection.videos_reordered',
      targetType: 'collection',
      targetId: collectionId,
      metadata: { videoIds },
    });
    return collectionWithVideos(tx, { ...collection, updatedAt: now });
  });
}
