import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/client.ts';
import { videos, videoTopics } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { utcDay } from '../../lib/clock.ts';
import { counted } from '../../lib/text.ts';
import { metered } from '../ai/budget.ts';
import type { AnswerEngine } from '../ai/engine.ts';
import { answerQuestion } from '../ai/qa.ts';
import type { AuthUser } from '../auth/sessions.ts';
import { type ReadableTopic, readableTopic } from '../topics/service.ts';
import { meetingDate } from '../videos/meetings.ts';
import { citationBook, type Quotable } from './compose.ts';
import { loadItems, toDate } from './meetings.ts';
import type { TopicSummaryView } from './schemas.ts';

/** The meetings a topic summary reads: the latest 100 that discuss it. */
const TIMELINE = 100;
/** Sentences of the meetings' summaries kept as key points: the latest ones. */
const KEY_POINTS = 8;

/**
 * Whether a text is about the topic: its stemmed words hold every word of the topic's key, or it
 * says the topic's name (any case).
 */
function mentionsTopic(text: SQL, stems: SQL, topic: ReadableTopic): SQL {
  const key = sql`array_remove(string_to_array(${topic.key}, ' '), '')`;
  return sql`((cardinality(${key}) > 0 and ${stems} @> ${key})
    or position(lower(${topic.name}) in lower(${text})) > 0)`;
}

/** The live meetings that discuss the topic, oldest first. */
async function topicTimeline(db: Db, topic: ReadableTopic) {
  const rows = await db
    .select({
      videoId: videos.id,
      title: videos.title,
      date: meetingDate,
      mentions: videoTopics.mentions,
      firstStart: videoTopics.firstStart,
    })
    .from(videoTopics)
    .innerJoin(videos, eq(videos.id, videoTopics.videoId))
    .where(
      and(
        eq(videoTopics.topicId, topic.id),
        eq(videos.organizationId, topic.organizationId),
        eq(videos.isDeleted, false),
      ),
    )
    .orderBy(desc(meetingDate), desc(videos.id))
    .limit(TIMELINE);
  return rows.reverse();
}

/** Sentences of the meetings' extracted summaries that are about the topic, in time order. */
async function keySentences(db: Db, topic: ReadableTopic, videoIds: string[]): Promise<Quotable[]> {
  const text = sql`(q.value->>'text')`;
  const { rows } = await db.execute<Omit<Quotable, 'date'> & { date: string | Date }>(sql`
    select v.id as "videoId", v.title as "videoTitle", coalesce(v.recorded_at, v.created_at) as date,
      ${text} as text, (q.value->>'start')::float8 as start, (q.value->>'end')::float8 as "end",
      q.value->>'speaker' as speaker
    from video_knowledge k join videos v on v.id = k.video_id
      cross join lateral jsonb_array_elements(k.summary) as q(value)
    where k.video_id = any(${sql.param(videoIds)}::uuid[]) and k.status = 'ready' and not v.is_deleted
      and ${mentionsTopic(text, sql`tsvector_to_array(to_tsvector('english', ${text}))`, topic)}
    order by date desc, start desc
    limit ${KEY_POINTS}`);
  return rows
    .sort((a, b) => toDate(a.date).getTime() - toDate(b.date).getTime() || a.start - b.start)
    .map((sentence) => ({ ...sentence, date: toDate(sentence.date) }));
}

/** `"Pricing" came up in 3 meetings from 2026-11-02 to 2026-11-20 (12 mentions).` */
function lead(topic: ReadableTopic, timeline: Array<{ date: Date; mentions: number }>): string {
  const days = timeline.map((meeting) => utcDay(meeting.date));
  const [first, last] = [days[0], days.at(-1)];
  const when = first === last ? `on ${first}` : `from ${first} to ${last}`;
  const mentions = timeline.reduce((total, meeting) => total + meeting.mentions, 0);
  return `"${topic.name}" came up in ${counted(timeline.length, 'meeting')} ${when} (${counted(mentions, 'mention')}).`;
}

/**
 * `GET /ai/summaries/topic/{id}`: what the organization's meetings said about a topic. The engine
 * answers "what was said about <topic>" from retrieved passages of the topic's meetings (the
 * keywords join the retrieval query), so a model-backed engine writes prose; the extracted
 * summaries' sentences about the topic are its key points, and its decisions are listed. Every
 * claim is cited. Costs `summary` credits.
 */
export async function topicSummary(
  context: AppContext,
  engine: AnswerEngine,
  user: AuthUser,
  topicId: string,
): Promise<TopicSummaryView> {
  const { db } = context;
  const topic = await readableTopic(db, user, topicId);
  const timeline = await topicTimeline(db, topic);
  // Its every meeting is deleted: nothing of it may be shown, as GET /topics does not list it.
  if (timeline.length === 0) throw errors.notFound('Topic not found');
  return metered(context, { organizationId: topic.organizationId, feature: 'summary' }, () =>
    composeTopicSummary(context, engine, topic, timeline),
  );
}

/** The summary itself, from the topic's meetings (oldest first). */
async function composeTopicSummary(
  context: AppContext,
  engine: AnswerEngine,
  topic: Awaited<ReturnType<typeof readableTopic>>,
  timeline: Awaited<ReturnType<typeof topicTimeline>>,
): Promise<TopicSummaryView> {
  const { db } = context;
  const videoIds = timeline.map((meeting) => meeting.videoId);
  const [answer, sentences, { decisions, totals }] = await Promise.all([
    answerQuestion(context, engine, {
      question: `What was said about ${topic.name}?`,
      scope: { organizationIds: [topic.organizationId], videoIds },
      // Joins the retrieval query only: the keywords find passages without diluting the question.
      earlier: topic.keywords.length > 0 ? [topic.keywords.join(' ')] : [],
    }),
    keySentences(db, topic, videoIds),
    loadItems(db, videoIds, {
      kinds: ['decision'],
      where: mentionsTopic(sql`i.text`, sql`string_to_array(i.subject, ' ')`, topic),
    }),
  ]);
  const book = citationBook(answer.answered ? answer.citations : []);
  const keyPoints =
    sentences.length > 0 || !answer.answered
      ? sentences.map((sentence) => ({ text: sentence.text, source: book.cite(sentence) }))
      : answer.citations.map((citation) => ({ text: citation.quote, source: citation.source }));
  const parts = [
    lead(topic, timeline),
    answer.answered
      ? answer.answer
      : keyPoints
          .slice(0, 3)
          .map((point) => `${point.text} [${point.source}]`)
          .join(' '),
  ];
  const latest = decisions.at(-1);
  if (latest) {
    parts.push(
      `${counted(totals.decisions, 'decision')} about it; the latest (${utcDay(latest.date)}): ` +
        `${latest.text} [${book.cite(latest)}]`,
    );
  }
  return {
    topic: { id: topic.id, name: topic.name, keywords: topic.keywords },
    summary: parts.filter(Boolean).join(' '),
    keyPoints,
    decisions,
    timeline,
    citations: book.list(),
  };
}
