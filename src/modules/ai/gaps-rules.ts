import { v5 as uuidv5 } from 'uuid';
import { utcDay } from '../../lib/clock.ts';
import { clipped, counted } from '../../lib/text.ts';
import {
  byWord,
  byWordLatestFirst,
  covering,
  covers,
  heldLater,
  shareOf,
  subjectWords,
} from './word-sets.ts';

/**
 * Knowledge gaps, as pure functions over what an organization's live meetings and questions hold
 * (the loader in gaps.ts brings only those: no deleted video, no other organization).
 */

export const GAP_TYPES = [
  'unanswered_question',
  'open_question',
  'decision_without_owner',
  'stale_decision',
  'undocumented_topic',
] as const;
export type GapType = (typeof GAP_TYPES)[number];
export type Severity = 'high' | 'medium' | 'low';

/** A knowledge item of a live meeting, with the meeting it was said in. */
export type Moment = {
  id: string;
  kind: string;
  text: string;
  speaker: string | null;
  start: number;
  end: number;
  owner: string | null;
  answered: boolean | null;
  subject: string;
  videoId: string;
  videoTitle: string;
  date: Date;
};

/** A question asked through QA or chat. Who asked is counted, never shown. */
export type Asking = {
  question: string;
  normalized: string;
  userId: string | null;
  answered: boolean;
  confidence: number;
  askedAt: Date;
};

/** A topic as one live meeting discusses it. */
export type TopicPresence = {
  topicId: string;
  name: string;
  key: string;
  videoId: string;
  videoTitle: string;
  date: Date;
  score: number;
  mentions: number;
  firstStart: number;
};

export type Evidence = {
  text: string;
  videoId: string | null;
  videoTitle: string | null;
  start: number | null;
  end: number | null;
  speaker: string | null;
  at: Date;
};

export type Gap = {
  id: string;
  type: GapType;
  title: string;
  description: string;
  severity: Severity;
  occurrences: number;
  evidence: Evidence[];
  firstSeenAt: Date;
  lastSeenAt: Date;
};

export type GapInput = {
  organizationId: string;
  now: Date;
  /** The window's start: `days` before now. */
  since: Date;
  /** Items of meetings from `staleSince(since)` on: stale decisions look further back. */
  moments: Moment[];
  askings: Asking[];
  topics: TopicPresence[];
};

const DAY = 86_400_000;
/** An answer below this confidence leaves the question a gap. */
export const LOW_CONFIDENCE = 0.35;
/** A later decision or answer that says this share of an open question's words answers it. */
export const ANSWERED_LATER_SHARE = 0.6;
/** A decision nobody came back to for this long is stale. */
export const STALE_AFTER_DAYS = 90;
/** Topic rule: in at least this many meetings of the window, central (score ≥ 0.5) in none… */
export const UNDOCUMENTED_MIN_MEETINGS = 3;
export const CENTRAL_SCORE = 0.5;
/** …or asked about at least this many times while central to at most one meeting. */
export const UNDOCUMENTED_MIN_ASKED = 2;
const MAX_EVIDENCE = 5;

/** The first meeting date stale decisions look at: they turned stale within the window. */
export const staleSince = (since: Date) => new Date(since.getTime() - STALE_AFTER_DAYS * DAY);

/** Stable across calls: the same gap keeps its id while the knowledge behind it stays. */
/** Gap titles quote a decision up to this many characters. */
const TITLE_CHARACTERS = 80;
const NAMESPACE = '3f0e8a52-6c1b-4d0e-9a57-2b8c4e1d7f36';
const gapId = (type: GapType, organizationId: string, key: string) =>
  uuidv5(`${type}:${organizationId}:${key}`, NAMESPACE);

/** A label that announces what follows it, after whatever the sentence said before: "Okay, decision: ". */
const LABEL = /^(?:[^:]*[.?!]\s+)?([^.?!:]{0,80}):\s+(?=\S)/;

/**
 * A decision or a question without the label it was announced with, when the label names its
 * kind, as the gap's title says it already: "Decision, then: we move…" is "We move…", and "Open
 * question from me: what happens…" is "What happens…", where "me" would be nobody. The evidence
 * still quotes the words as said.
 */
const NAMES_KIND = { decision: /\bdecisions?\b/i, question: /\bquestions?\b/i };
function withoutLabel(text: string, kind: keyof typeof NAMES_KIND): string {
  const label = text.match(LABEL);
  if (!label?.[1] || !NAMES_KIND[kind].test(label[1])) return text;
  const rest = text.slice(label[0].length);
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

const daysBetween = (from: Date, to: Date) => Math.floor((to.getTime() - from.getTime()) / DAY);

const momentEvidence = (moment: Moment): Evidence => ({
  text: moment.text,
  videoId: moment.videoId,
  videoTitle: moment.videoTitle,
  start: moment.start,
  end: moment.end,
  speaker: moment.speaker,
  at: moment.date,
});
const askingEvidence = (asking: Asking): Evidence => ({
  text: asking.question,
  videoId: null,
  videoTitle: null,
  start: null,
  end: null,
  speaker: null,
  at: asking.askedAt,
});
/** Newest first, at most five; the times span every occurrence, not only those shown. */
function spanOf(evidence: Evidence[]) {
  const sorted = [...evidence].sort((a, b) => b.at.getTime() - a.at.getTime());
  return {
    evidence: sorted.slice(0, MAX_EVIDENCE),
    firstSeenAt: sorted[sorted.length - 1]?.at as Date,
    lastSeenAt: sorted[0]?.at as Date,
  };
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/**
 * Questions asked through QA or chat that nothing answered, or only with confidence below 0.35,
 * grouped by their stemmed words. A group whose latest asking was answered well is closed.
 * Severity: high when 3+ people or 5+ askings, medium when asked twice or more, else low.
 */
export function unansweredQuestions({ organizationId, askings }: GapInput): Gap[] {
  const gaps: Gap[] = [];
  const groups = groupBy(askings, (asking) => asking.normalized || asking.question.trim().toLowerCase());
  for (const [key, group] of groups) {
    const ordered = [...group].sort((a, b) => a.askedAt.getTime() - b.askedAt.getTime());
    const latest = ordered[ordered.length - 1];
    if (!latest || (latest.answered && latest.confidence >= LOW_CONFIDENCE)) continue;
    const open = ordered.filter((asking) => !asking.answered || asking.confidence < LOW_CONFIDENCE);
    const people = new Set(open.map((asking) => asking.userId ?? 'someone')).size;
    const why = open.every((asking) => !asking.answered)
      ? 'nothing in the library answers it.'
      : `the library answers it only weakly (confidence below ${LOW_CONFIDENCE}).`;
    gaps.push({
      id: gapId('unanswered_question', organizationId, key),
      type: 'unanswered_question',
      title: latest.question,
      description: `Asked ${counted(open.length, 'time')} by ${counted(people, 'person', 'people')}; ${why}`,
      severity: people >= 3 || open.length >= 5 ? 'high' : open.length >= 2 ? 'medium' : 'low',
      occurrences: open.length,
      ...spanOf(open.map(askingEvidence)),
    });
  }
  return gaps;
}

/**
 * Questions raised in meetings of the window that nobody answered there, grouped by identical
 * subject, and that no later meeting answered either: a later decision or answered question whose
 * subject holds 60 % of the question's words answers it. Severity: high when raised in 3+
 * meetings, medium in 2 or when first raised over 30 days ago, else low.
 */
export function openQuestions({ organizationId, now, since, moments }: GapInput): Gap[] {
  const raised = moments.filter((m) => m.kind === 'question' && m.answered === false && m.date >= since);
  const answers = byWordLatestFirst(
    moments
      .filter(
        (m) => m.subject !== '' && (m.kind === 'decision' || (m.kind === 'question' && m.answered === true)),
      )
      .map((m) => ({ date: m.date, words: subjectWords(m.subject) })),
  );
  const gaps: Gap[] = [];
  for (const [key, group] of groupBy(raised, (m) => m.subject || `text:${m.text.trim().toLowerCase()}`)) {
    const ordered = [...group].sort((a, b) => a.date.getTime() - b.date.getTime() || a.start - b.start);
    const latest = ordered[ordered.length - 1] as Moment;
    const words = subjectWords(latest.subject);
    if (heldLater(answers, words, latest.date, ANSWERED_LATER_SHARE)) continue;
    const meetings = new Set(group.map((m) => m.videoId)).size;
    const span = spanOf(group.map(momentEvidence));
    const times = group.length > meetings ? `${counted(group.length, 'time')} in ` : 'in ';
    gaps.push({
      id: gapId('open_question', organizationId, key),
      type: 'open_question',
      title: withoutLabel(latest.text, 'question'),
      description:
        `Raised ${times}${counted(meetings, 'meeting')} (last on ${utcDay(latest.date)}) and never answered, ` +
        'neither there nor in a later meeting.',
      severity:
        meetings >= 3 ? 'high' : meetings === 2 || daysBetween(span.firstSeenAt, now) > 30 ? 'medium' : 'low',
      occurrences: group.length,
      ...span,
    });
  }
  return gaps;
}

const singleGap = (
  type: GapType,
  organizationId: string,
  moment: Moment,
  fields: Pick<Gap, 'title' | 'description' | 'severity'>,
): Gap => ({
  id: gapId(type, organizationId, moment.id),
  type,
  ...fields,
  occurrences: 1,
  evidence: [momentEvidence(moment)],
  firstSeenAt: moment.date,
  lastSeenAt: moment.date,
});

/**
 * Decisions of the window whose meeting has no action item with an owner about it (sharing a
 * word of its subject). Severity: medium within 30 days of the meeting, low after.
 */
export function decisionsWithoutOwner({ organizationId, now, since, moments }: GapInput): Gap[] {
  const ownedWords = new Map<string, Set<string>[]>();
  for (const m of moments) {
    if (m.kind !== 'action_item' || !m.owner?.trim()) continue;
    const owned = ownedWords.get(m.videoId);
    if (owned) owned.push(subjectWords(m.subject));
    else ownedWords.set(m.videoId, [subjectWords(m.subject)]);
  }
  return moments
    .filter((m) => m.kind === 'decision' && m.date >= since)
    .filter((decision) => {
      const words = subjectWords(decision.subject);
      return !(ownedWords.get(decision.videoId) ?? []).some((owned) => shareOf(words, owned) > 0);
    })
    .map((decision) =>
      singleGap('decision_without_owner', organizationId, decision, {
        title: `Decision with no owner: ${clipped(withoutLabel(decision.text, 'decision'), TITLE_CHARACTERS)}`,
        description:
          `Decided in "${decision.videoTitle}" on ${utcDay(decision.date)}; no action item of that meeting ` +
          'with an owner is about it.',
        severity: daysBetween(decision.date, now) <= 30 ? 'medium' : 'low',
      }),
    );
}

/**
 * Decisions that turned stale within the window — made 90 to 90 + `days` days ago — and that no
 * later meeting came back to: no later item holds 60 % of the decision's words, no later
 * meeting's topic is about it (all the topic's key words in the decision's subject). Decisions
 * without a subject cannot be compared and are left out. Severity: medium from 180 days, else low.
 */
export function staleDecisions({ organizationId, now, since, moments, topics }: GapInput): Gap[] {
  const staleBefore = new Date(now.getTime() - STALE_AFTER_DAYS * DAY);
  const from = staleSince(since);
  const said = byWordLatestFirst(moments.map((m) => ({ date: m.date, words: subjectWords(m.subject) })));
  const discussed = topics.map((topic) => ({ date: topic.date, words: subjectWords(topic.key) }));
  return moments
    .filter((m) => m.kind === 'decision' && m.subject !== '' && m.date >= from && m.date < staleBefore)
    .filter((decision) => {
      const words = subjectWords(decision.subject);
      const laterItem = heldLater(said, words, decision.date, ANSWERED_LATER_SHARE);
      const laterTopic = discussed.some((topic) => topic.date > decision.date && covers(words, topic.words));
      return !laterItem && !laterTopic;
    })
    .map((decision) => {
      const age = daysBetween(decision.date, now);
      return singleGap('stale_decision', organizationId, decision, {
        title: `Stale decision: ${clipped(withoutLabel(decision.text, 'decision'), TITLE_CHARACTERS)}`,
        description: `Decided ${age} days ago in "${decision.videoTitle}" and not discussed in any meeting since.`,
        severity: age >= 180 ? 'medium' : 'low',
      });
    });
}

/**
 * Topics of the window's meetings with little behind them, when either
 * - talked around: in 3+ meetings of the window, central (score ≥ 0.5) in none, and no decision
 *   or action item of the window holds all its key words; or
 * - asked about: 2+ QA or chat questions of the window hold all its key words, while at most one
 *   meeting of the window is centrally about it.
 * occurrences = its meetings in the window + the questions about it. Severity: high when both
 * hold or 6+ occurrences, else medium.
 */
export function undocumentedTopics({ organizationId, since, moments, askings, topics }: GapInput): Gap[] {
  const recorded = byWord(
    moments
      .filter((m) => m.date >= since && (m.kind === 'decision' || m.kind === 'action_item'))
      .map((m) => ({ words: subjectWords(m.subject) })),
  );
  const asked = byWord(askings.map((asking) => ({ asking, words: subjectWords(asking.normalized) })));
  const gaps: Gap[] = [];
  const inWindow = topics.filter((presence) => presence.date >= since);
  for (const [topicId, presences] of groupBy(inWindow, (presence) => presence.topicId)) {
    const { name, key } = presences[0] as TopicPresence;
    const keyWords = subjectWords(key);
    const central = presences.filter((presence) => presence.score >= CENTRAL_SCORE).length;
    const documented = covering(recorded, keyWords).length > 0;
    const questions = covering(asked, keyWords).map(({ asking }) => asking);
    const talkedAround = presences.length >= UNDOCUMENTED_MIN_MEETINGS && central === 0 && !documented;
    const askedAbout = questions.length >= UNDOCUMENTED_MIN_ASKED && central <= 1;
    if (!talkedAround && !askedAbout) continue;
    const reasons = [
      talkedAround &&
        `Came up in ${counted(presences.length, 'meeting')} but was central to none (score below ${CENTRAL_SCORE}), ` +
          'and no decision or action item is about it.',
      askedAbout &&
        `Asked about ${counted(questions.length, 'time')} through Q&A and chat, while ` +
          `${central === 0 ? 'no meeting is' : 'only one meeting is'} mainly about it.`,
    ].filter(Boolean);
    const occurrences = presences.length + questions.length;
    gaps.push({
      id: gapId('undocumented_topic', organizationId, topicId),
      type: 'undocumented_topic',
      title: `Undocumented topic: ${name}`,
      description: reasons.join(' '),
      severity: (talkedAround && askedAbout) || occurrences >= 6 ? 'high' : 'medium',
      occurrences,
      ...spanOf([
        ...presences.map((presence) => ({
          text: `"${name}" mentioned ${counted(presence.mentions, 'time')}`,
          videoId: presence.videoId,
          videoTitle: presence.videoTitle,
          start: presence.firstStart,
          end: null,
          speaker: null,
          at: presence.date,
        })),
        ...questions.map(askingEvidence),
      ]),
    });
  }
  return gaps;
}

const DETECTORS: Record<GapType, (input: GapInput) => Gap[]> = {
  unanswered_question: unansweredQuestions,
  open_question: openQuestions,
  decision_without_owner: decisionsWithoutOwner,
  stale_decision: staleDecisions,
  undocumented_topic: undocumentedTopics,
};
const RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

/** The gaps of one type, or of all, at least `minSeverity`: most severe first, then most recently seen. */
export function findGaps(input: GapInput, type?: GapType, minSeverity: Severity = 'low'): Gap[] {
  return (type ? [type] : GAP_TYPES)
    .flatMap((kind) => DETECTORS[kind](input))
    .filter((gap) => RANK[gap.severity] <= RANK[minSeverity])
    .sort(
      (a, b) =>
        RANK[a.severity] - RANK[b.severity] ||
        b.lastSeenAt.getTime() - a.lastSeenAt.getTime() ||
        a.id.localeCompare(b.id),
    );
}
