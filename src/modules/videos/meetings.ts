import { and, eq, sql } from 'drizzle-orm';
import { videos } from '../../db/schema/index.ts';

/**
 * When a meeting happened: when it was recorded, else when it was added. Every feature that dates
 * meetings (summaries, gaps, trends, topics, extraction) reads this one expression.
 */
export const meetingDate = sql<Date>`coalesce(${videos.recordedAt}, ${videos.createdAt})`.mapWith(
  (value: string | Date) => new Date(value),
);

/** The organization's videos that are not deleted: the only meetings AI features read. */
export const liveVideosOf = (organizationId: string) =>
  and(eq(videos.organizationId, organizationId), eq(videos.isDeleted, false));
