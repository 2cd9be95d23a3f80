import { and, eq, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { videos } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/queue.ts';
import { recordActivity } from '../activity/service.ts';

const BATCH = 200;

/**
 * Permanently deletes the soft-deleted videos whose retention ended by `now`; their segments,
 * viewers and playlist completions go with them (foreign-key cascades). Batches are locked with
 * SKIP LOCKED, so instances running it at once share the work. Returns how many were purged.
 */
export async function purgeExpiredVideos(db: Db, now: Date): Promise<number> {
  let purged = 0;
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const due = tx
        .select({ id: videos.id })
        .from(videos)
        .where(and(eq(videos.isDeleted, true), lte(videos.retentionUntil, now)))
        .orderBy(videos.retentionUntil)
        .limit(BATCH)
        .for('update', { skipLocked: true });
      const removed = await tx
        .delete(videos)
        .where(sql`${videos.id} IN (${due})`)
        .returning({ id: videos.id, organizationId: videos.organizationId, title: videos.title });
      for (const video of removed) {
        await recordActivity(tx, {
          organizationId: video.organizationId,
          actorId: null,
          action: 'video.purged',
          targetType: 'video',
          targetId: video.id,
          metadata: { title: video.title },
        });
      }
      return removed.length;
    });
    purged += batch;
    if (batch < BATCH) return purged;
  }
}

const purgeJobData = z.object({ now: z.iso.datetime({ offset: true }).optional() });

/** Hourly. `now` (ISO 8601) may be given to purge as of another time; the default is the present. */
export const videoPurgeJob: JobDefinition = {
  name: 'video-purge',
  cron: '7 * * * *',
  handler: async (data, { db, logger }) => {
    const given = purgeJobData.parse(data).now;
    const now = given ? new Date(given) : new Date();
    const purged = await purgeExpiredVideos(db, now);
    logger.info({ purged }, 'expired videos purged');
  },
};
