import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { videoSpeakerStats } from '../../db/schema/index.ts';
import { conversationStats, type StatSegment } from './conversation.ts';

/** Replaces a meeting's per-speaker statistics, in the transaction that stores its transcript. */
export async function storeSpeakerStats(
  tx: Tx,
  video: { id: string; organizationId: string },
  segments: StatSegment[],
) {
  await tx.delete(videoSpeakerStats).where(eq(videoSpeakerStats.videoId, video.id));
  const rows = [...conversationStats(segments)].map(([speakerId, stats]) => ({
    videoId: video.id,
    organizationId: video.organizationId,
    speakerId,
    ...stats,
  }));
  if (rows.length > 0) await tx.insert(videoSpeakerStats).values(rows);
}
