import { rm } from 'node:fs/promises';
import { inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { videoMedia } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { resumableStore } from './resumable.ts';
import type { MediaStore } from './storage.ts';

/** A file this young may belong to an upload whose row is being committed. */
const GRACE_MS = 60 * 60 * 1000;
/** An upload still arriving after this long was abandoned. */
const ABANDONED_MS = 24 * 60 * 60 * 1000;

/**
 * Removes what no video holds: the files of purged or deleted videos and of replaced recordings
 * whose removal was interrupted, and uploads abandoned mid-way (form uploads in `incoming`,
 * resumable ones unfinished after a day). Returns how many files went.
 */
export async function sweepMedia(db: Db, store: MediaStore, now: Date): Promise<number> {
  let removed = await resumableStore(store.root).deleteExpired();
  for (const file of await store.staleIncoming(new Date(now.getTime() - ABANDONED_MS))) {
    await rm(file, { force: true });
    removed++;
  }
  const keys = await store.keys();
  for (let offset = 0; offset < keys.length; offset += 1000) {
    const batch = keys.slice(offset, offset + 1000);
    const held = new Set(
      (
        await db
          .select({ key: videoMedia.storageKey })
          .from(videoMedia)
          .where(
            inArray(
              videoMedia.storageKey,
              batch.map(({ key }) => key),
            ),
          )
      ).map((row) => row.key),
    );
    for (const { key, modifiedAt } of batch) {
      if (held.has(key) || now.getTime() - modifiedAt.getTime() < GRACE_MS) continue;
      await store.remove(key);
      removed++;
    }
  }
  return removed;
}

export const mediaSweepJob = ({ clock, store }: { clock: Clock; store: MediaStore }): JobDefinition => ({
  name: 'media-sweep',
  cron: '*/10 * * * *',
  handler: async (_data, { db, logger }) => {
    const removed = await sweepMedia(db, store, clock.now());
    if (removed > 0) logger.info({ removed }, 'media files no video holds were removed');
  },
});
