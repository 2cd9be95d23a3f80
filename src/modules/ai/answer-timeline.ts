import { utcDay } from '../../lib/clock.ts';
import { decisionCueIn } from '../knowledge/nlp/items.ts';
import { subjectOf } from '../knowledge/nlp/text.ts';
import { findDisagreements, type Statement } from './conflicts-rules.ts';
import type { Source } from './engine.ts';

/**
 * When an answer quotes meetings held on different days, the order things were said in matters:
 * "search v2 ships on January 30" is not the answer once a later meeting moved it. These are the
 * rules the local engine writes a timeline by; they reuse the conflict rules of `GET
 * /ai/gaps/conflicts`, applied to what the answer quotes rather than to stored decisions.
 */

/** A passage said in a meeting: a sentence the answer leads with, or a turn that may change it. */
export type Said = { text: string; videoId: string; date: Date };

/**
 * Whether the passages were said on more than one (UTC) day, as the conflicts endpoint dates
 * meetings: only then does an answer date them.
 */
export const spansDays = (dates: Date[]) => new Set(dates.map(utcDay)).size > 1;

/**
 * How an answer names a meeting's day: "January 5", with the year when the answer's meetings
 * fall in more than one year ("January 5, 2026").
 */
export function dayWriter(dates: Date[]): (date: Date) => string {
  const years = new Set(dates.map((date) => date.getUTCFullYear()));
  const format = new Intl.DateTimeFormat('en-US', {
    month: 'long',
    day: 'numeric',
    ...(years.size > 1 ? { year: 'numeric' } : {}),
    timeZone: 'UTC',
  });
  return (date) => format.format(date);
}

/**
 * Of `later`, the passage that changes the decision `lead` states (a decision taken, as extraction
 * reads one): said in another meeting on a later day, and about the same subject with another
 * date, option or number, or saying in words that it replaces the decision ("The earlier decision
 * to keep the checklist is on hold"). The most confident change; null when none, or when the lead
 * states no decision.
 */
export function laterChange<T extends Said>(lead: Said, later: T[]): T | null {
  if (decisionCueIn(lead.text) === null) return null;
  const statement = (said: Said, id: string): Statement => ({
    id,
    videoId: said.videoId,
    date: said.date,
    text: said.text,
    subject: subjectOf(said.text),
  });
  const earlier = statement(lead, 'lead');
  let best: { said: T; confidence: number } | null = null;
  // Each candidate is weighed against the lead alone: a revision is paired with the closest
  // earlier statement it is given, which must be the lead.
  for (const said of later) {
    if (said.videoId === lead.videoId || utcDay(said.date) <= utcDay(lead.date)) continue;
    const [change] = findDisagreements([earlier, statement(said, 'later')]).filter(
      (pair) => pair.verdict.kind === 'superseded',
    );
    if (change && (!best || change.verdict.confidence > best.confidence)) {
      best = { said, confidence: change.verdict.confidence };
    }
  }
  return best?.said ?? null;
}

/** What the timeline reads of a sentence an answer quotes. */
export type QuotedSentence = { source: Source; turn: number; text: string };

/** When the meeting a part of an answer quotes was held. */
export const meetingOf = (part: QuotedSentence[]) => (part[0] as QuotedSentence).source.recordedAt;

/**
 * An answer's parts as a person tells what meetings said: the lead's meeting first, then the
 * other meetings — oldest first when they were held on different days, so that a later change
 * comes after what it changes; else in the order the answer reached them. Each meeting opens with
 * its part the answer reached first (the lead; the change to the lead's decision), and its other
 * parts follow in the order they were said: "Two things. Single sign-on is the big one." before
 * "The second thing is export.".
 */
export function asTimeline<S extends QuotedSentence>(parts: S[][]): S[][] {
  const videoOf = (part: S[]) => (part[0] as S).source.videoId;
  const meetings = [...new Set(parts.map(videoOf))];
  const opening = new Set(meetings.map((videoId) => parts.find((part) => videoOf(part) === videoId)));
  const dated = spansDays(parts.map(meetingOf));
  const meetingOrder = (part: S[]) =>
    videoOf(part) === meetings[0] ? -1 : dated ? meetingOf(part).getTime() : 0;
  const turnOrder = (part: S[]) => (opening.has(part) ? -1 : (part[0] as S).turn);
  return parts.toSorted(
    (a, b) =>
      meetingOrder(a) - meetingOrder(b) ||
      meetings.indexOf(videoOf(a)) - meetings.indexOf(videoOf(b)) ||
      turnOrder(a) - turnOrder(b),
  );
}

/**
 * Where to quote, of `others` (`quotable`: the sentences an answer may quote of a source), the
 * change to the decision `lead` states (laterChange): a sentence on the question that changes it;
 * else the turn that does ("Then the decision changes. Search v2 moves to February 13. This
 * replaces the January 30 date."), from its first sentence on the question that says more than
 * that the decision changes, else from its sentence that changes the decision on its own.
 */
export function changeOf<S extends QuotedSentence>(
  lead: S,
  others: Source[],
  quotable: (source: Source) => S[],
  onQuestion: (sentence: S) => boolean,
): S | undefined {
  const held = (source: Source) => ({ videoId: source.videoId, date: source.recordedAt });
  const asLead = { text: lead.text, ...held(lead.source) };
  const bySentence = laterChange(
    asLead,
    others.flatMap((source) =>
      quotable(source)
        .filter(onQuestion)
        .map((sentence) => ({ sentence, text: sentence.text, ...held(source) })),
    ),
  );
  if (bySentence) return bySentence.sentence;
  const byTurn = laterChange(
    asLead,
    others.flatMap((source) =>
      source.turns.map((turn) => ({ source, turn: turn.index, text: turn.text, ...held(source) })),
    ),
  );
  if (!byTurn) return undefined;
  const inTurn = quotable(byTurn.source).filter((sentence) => sentence.turn === byTurn.turn);
  // "What changed about search v2?": "Then the decision changes." says the question's words, but
  // "Search v2 moves to February 13" says what changed.
  const saysWhat = inTurn.filter((sentence) => !ANNOUNCES_CHANGE.test(sentence.text));
  // None on the question: the sentence that changes the lead on its own ("The earlier decision to
  // keep the checklist is on hold"), not the turn's first, which may decide something else.
  const changing = saysWhat.find((sentence) =>
    laterChange(asLead, [{ ...held(sentence.source), text: sentence.text }]),
  );
  return saysWhat.find(onQuestion) ?? changing ?? saysWhat[0] ?? inTurn[0];
}

/** A sentence that only announces a change, before saying what it is. */
const ANNOUNCES_CHANGE =
  /^\W*(?:(?:so|then|okay|ok|well|now)\b[,\s]*)*(?:the |our )?decision (?:changes|has changed|is reversed)\W*$/i;
