import { and, asc, eq, gte, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { integrations, knowledgeItems, videos } from '../../db/schema/index.ts';
import { utcDay } from '../../lib/clock.ts';
import { organizationGaps } from '../ai/gaps.ts';
import { liveVideosOf, meetingDate } from '../videos/meetings.ts';
import type { DeliveryContext } from './deliveries.ts';
import { queueIntegrationEvent } from './events.ts';
import type { WeeklyDigest } from './slack-messages.ts';

const DAY_MS = 86_400_000;
/** Action items stay "open" in the digest for four weeks after their meeting, unless their date passed. */
const OPEN_ACTION_DAYS = 28;
const ITEMS_MAX = 50;
const GAPS_MAX = 5;

/**
 * The week before `now` in an organization: meetings held, decisions taken in them, action items
 * still open (said in the last four weeks, due date not passed) and the most severe gaps.
 */
export async function weeklyDigest(db: Db, organizationId: string, now: Date): Promise<WeeklyDigest> {
  const from = new Date(now.getTime() - 7 * DAY_MS);
  const inWindow = (since: Date) =>
    and(liveVideosOf(organizationId), gte(meetingDate, since), lt(meetingDate, now));
  const today = utcDay(now);
  const items = (kind: string, since: Date, still?: SQL) =>
    db
      .select({
        text: knowledgeItems.text,
        owner: knowledgeItems.owner,
        dueDate: knowledgeItems.dueDate,
        videoId: videos.id,
        videoTitle: videos.title,
      })
      .from(knowledgeItems)
      .innerJoin(videos, eq(videos.id, knowledgeItems.videoId))
      .where(and(eq(knowledgeItems.kind, kind), inWindow(since), still))
      .orderBy(asc(meetingDate), asc(knowledgeItems.start))
      .limit(ITEMS_MAX);
  const [meetings, decisions, actionItems, gaps] = await Promise.all([
    db
      .select({ id: videos.id, title: videos.title })
      .from(videos)
      .where(inWindow(from))
      .orderBy(asc(meetingDate))
      .limit(ITEMS_MAX),
    items('decision', from),
    items(
      'action_item',
      new Date(now.getTime() - OPEN_ACTION_DAYS * DAY_MS),
      or(isNull(knowledgeItems.dueDate), gte(knowledgeItems.dueDate, today)),
    ),
    organizationGaps(db, organizationId, { now, days: 7, minSeverity: 'medium' }),
  ]);
  return {
    from: utcDay(from),
    to: utcDay(now),
    meetings,
    decisions: decisions.map(({ text, videoId, videoTitle }) => ({ text, videoId, videoTitle })),
    actionItems: actionItems.map(({ text, owner, dueDate, videoId }) => ({ text, owner, dueDate, videoId })),
    gaps: gaps.slice(0, GAPS_MAX).map((gap) => ({ title: gap.title, severity: gap.severity })),
  };
}

/**
 * Queues this week's digest for every enabled Slack integration that asked for it: one digest per
 * organization, one delivery per integration. Returns how many were queued.
 */
export async function queueWeeklyDigests(context: Pick<DeliveryContext, 'db' | 'clock'>): Promise<number> {
  const subscribers = await context.db
    .select({ id: integrations.id, organizationId: integrations.organizationId })
    .from(integrations)
    .where(
      and(
        eq(integrations.kind, 'slack'),
        eq(integrations.enabled, true),
        sql`'digest.weekly' = ANY(${integrations.events})`,
      ),
    );
  const now = context.clock.now();
  const byOrganization = Map.groupBy(subscribers, (subscriber) => subscriber.organizationId);
  for (const [organizationId, targets] of byOrganization) {
    const digest = await weeklyDigest(context.db, organizationId, now);
    await context.db.transaction(async (tx) => {
      for (const target of targets) {
        await queueIntegrationEvent(tx, {
          organizationId,
          type: 'digest.weekly',
          integrationId: target.id,
          data: digest,
        });
      }
    });
  }
  return subscribers.length;
}
