import { asc, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { videos } from '../../db/schema/index.ts';
import { rebuildDerived } from '../transcripts/service.ts';

const BATCH = 100;

/** The GIN indexes of the full-text index (the vectors themselves are generated columns, always current). */
const SEARCH_INDEXES = [
  'videos_search_idx',
  'transcript_chunks_search_idx',
  'clips_search_idx',
  'comments_search_idx',
  'channels_search_idx',
  'series_search_idx',
  'collections_search_idx',
];

/**
 * Rebuilds the knowledge index: every video's passages (and its speakers' conversation statistics,
 * docs/analytics.md) from its stored segments (one transaction
 * per video, so the service keeps running and a failure loses nothing), then the search indexes
 * (CONCURRENTLY: reads and writes go on meanwhile). For after a change to how passages are cut,
 * or to shed index bloat. Returns how many videos were re-chunked.
 */
export async function reindexAll(db: Db, log: (message: string) => void = () => {}): Promise<number> {
  let done = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await db
      .select({ id: videos.id, organizationId: videos.organizationId })
      .from(videos)
      .where(gt(videos.id, after))
      .orderBy(asc(videos.id))
      .limit(BATCH);
    for (const video of batch) {
      await db.transaction((tx) => rebuildDerived(tx, video));
      done++;
    }
    if (batch.length < BATCH) break;
    after = (batch.at(-1) as { id: string }).id;
    log(`${done} videos re-chunked`);
  }
  for (const name of SEARCH_INDEXES) await db.execute(sql.raw(`REINDEX INDEX CONCURRENTLY "${name}"`));
  log(`${done} videos re-chunked; ${SEARCH_INDEXES.length} search indexes rebuilt`);
  return done;
}
