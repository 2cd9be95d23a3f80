import { asc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { speakers, transcriptSegments } from '../../db/schema/index.ts';

/**
 * A video's segments in order, with speakers under their current names: what the transcript
 * routes, share pages, chunking and knowledge extraction read. A module of its own so that
 * readers need not depend on the service that writes transcripts (which announces its changes
 * to them).
 */
export function transcriptSegmentsOf(db: Db | Tx, videoId: string) {
  return db
    .select({
      index: transcriptSegments.index,
      start: transcriptSegments.startSeconds,
      end: transcriptSegments.endSeconds,
      // A renamed speaker shows under the new name.
      speaker: sql<string | null>`coalesce(${speakers.name}, ${transcriptSegments.speakerLabel})`,
      speakerId: transcriptSegments.speakerId,
      text: transcriptSegments.text,
    })
    .from(transcriptSegments)
    .leftJoin(speakers, eq(speakers.id, transcriptSegments.speakerId))
    .where(eq(transcriptSegments.videoId, videoId))
    .orderBy(asc(transcriptSegments.index));
}
