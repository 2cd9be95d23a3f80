import * as chrono from 'chrono-node';
import { TASK_LISTS } from '../search/question-terms.ts';

/**
 * "What did we decide?", "What decisions were made last week?", "What are the open questions?",
 * "Action items from this month?": a question that asks for the decisions, the questions left open
 * or the action items of its scope as a list — about nothing in particular, over the days it may
 * name. Retrieval by its words would find whatever says "decision" or "open question";
 * knowledge-lists.ts answers it from what knowledge extraction stored. A question that
 * names a matter ("…about the checklist") or a meeting ("…in the last sync") is not one.
 */

export type ListedKind = 'decision' | 'question' | 'action_item';

/**
 * Days a question names: meetings held from `from` (inclusive) to `to` (exclusive), UTC; `said`
 * as an answer says them ("last week", "in January"), `text` the question's words that name them,
 * `relative` when they are days counted from now ("last week"), which an answer spells out.
 */
export type HeldWindow = { from: Date; to: Date; said: string; text: string; relative: boolean };

/** `matter`: what the items must name ("action items for the job queue"), as said; null for all. */
export type KnowledgeListQuestion = { kind: ListedKind; window: HeldWindow | null; matter: string | null };

const KINDS: Array<[RegExp, ListedKind]> = [
  [
    /\b(?:open|unanswered|unresolved|outstanding|pending) questions?\b|\bquestions? (?:that )?(?:(?:are|were|is|remain|remained) )?(?:still )?(?:open|unanswered|unresolved|outstanding|pending|left open)\b/i,
    'question',
  ],
  [/\b(?:decisions?|decided|decide|agreed)\b/i, 'decision'],
  [new RegExp(`\\b(?:${TASK_LISTS}|actions|tasks?)\\b`, 'i'), 'action_item'],
];

/**
 * The words a list question is made of. Anything else is a matter or a meeting it asks about;
 * "meetings" (several) may be said, a meeting ("the sync", "the call") names one.
 */
const LIST_WORDS = new Set(
  (
    "what what's whats which list show tell give me us all any every the a an of from in at during on over " +
    'for across our were was are is be been being have has had did do does we they you made taken take ' +
    'make reached recorded came come out there so far still yet lately recently recent latest up to ' +
    'group team everyone people ' +
    'meetings decisions decision decide decided agreed agree open questions question unanswered ' +
    'unresolved outstanding pending left remain remained action items item actions tasks task todos ' +
    'to-dos todo to-do next steps follow-ups follow-up followups that which please can could'
  ).split(' '),
);

const DAY_MS = 86_400_000;
const startOfDay = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
/** Monday of the date's week. */
const startOfWeek = (date: Date) => addDays(startOfDay(date), -((date.getUTCDay() + 6) % 7));
const startOfMonth = (date: Date, monthsAgo = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - monthsAgo, 1));

const NUMBERS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, ten: 10 };

/** Relative windows, each with the days it spans as of `now`. */
const RELATIVE: Array<[RegExp, (now: Date, match: RegExpMatchArray) => [Date, Date]]> = [
  [/\btoday\b/i, (now) => [startOfDay(now), addDays(startOfDay(now), 1)]],
  [/\byesterday\b/i, (now) => [addDays(startOfDay(now), -1), startOfDay(now)]],
  [
    /\b(?:in |over |during )?the (?:last|past) (?:(\d+|two|three|four|five|six|seven|ten) )?(days?|weeks?|months?)\b/i,
    (now, match) => {
      const count = Number(match[1] ? (NUMBERS[match[1].toLowerCase()] ?? match[1]) : 1);
      const unit = match[2]?.toLowerCase().startsWith('month') ? 30 : match[2]?.startsWith('week') ? 7 : 1;
      return [addDays(startOfDay(now), 1 - count * unit), addDays(startOfDay(now), 1)];
    },
  ],
  [/\bthis week\b/i, (now) => [startOfWeek(now), addDays(startOfDay(now), 1)]],
  [/\b(?:last|previous) week\b/i, (now) => [addDays(startOfWeek(now), -7), startOfWeek(now)]],
  [/\bthis month\b/i, (now) => [startOfMonth(now), addDays(startOfDay(now), 1)]],
  [/\b(?:last|previous) month\b/i, (now) => [startOfMonth(now, 1), startOfMonth(now)]],
];

/** The days a question names ("last week", "in January", "since January 12", "on January 8"), as of `now`. */
export function heldWindow(question: string, now: Date): HeldWindow | null {
  for (const [pattern, span] of RELATIVE) {
    const match = question.match(pattern);
    if (match) {
      const [from, to] = span(now, match);
      return { from, to, said: match[0], text: match[0], relative: true };
    }
  }
  for (const result of chrono.parse(question, now)) {
    const { start } = result;
    if (!start.isCertain('month')) continue;
    // A day or month said without a year is the latest one up to now ("January 12" in November).
    const month = (start.get('month') as number) - 1;
    const dayOfMonth = start.isCertain('day') ? (start.get('day') as number) : 1;
    const thisYear = now.getUTCFullYear();
    const year = start.isCertain('year')
      ? (start.get('year') as number)
      : thisYear - (Date.UTC(thisYear, month, dayOfMonth) > now.getTime() ? 1 : 0);
    const from = new Date(Date.UTC(year, month, dayOfMonth));
    const to = start.isCertain('day') ? addDays(from, 1) : new Date(Date.UTC(year, month + 1, 1));
    const since = question.slice(0, result.index).match(/\bsince\s*$/i);
    if (since) {
      const text = `${since[0]}${result.text}`;
      return { from, to: addDays(startOfDay(now), 1), said: `since ${result.text}`, text, relative: false };
    }
    const said = `${start.isCertain('day') ? 'on' : 'in'} ${result.text}`;
    return { from, to, said, text: result.text, relative: false };
  }
  return null;
}

/**
 * "What's the status of search v2?", "Where are we with the night batch?", "Any update on the
 * checklist?", "What happened with the onboarding checklist?": the matter whose latest state the
 * question asks for, as said; null when it asks something else ("What happened at the design
 * review?" asks about a meeting: meeting-questions.ts).
 */
const ASKS_STATUS =
  /^\s*(?:what(?:'s|’s| is) the (?:status|latest|progress|state) (?:of|on|with|for)|where (?:are we|do we stand|are things|do things stand) (?:with|on)|what(?:'s|’s| is) new (?:on|with)|any (?:news|updates?) (?:on|about)|(?:give me )?an? (?:status )?update on|what(?: has| had)? happened (?:with|to)|what(?:'s|’s| is) (?:happening|going on) with)\s+(.+?)[\s?.!]*$/i;

export const statusMatter = (question: string) => question.match(ASKS_STATUS)?.[1] ?? null;

/**
 * "What changed after the outage?", "What did we change following the incident?": the event
 * whose consequences — what was decided and taken on about it — the question asks for, as said;
 * null when it asks something else. "What changed about search v2?" asks how a decision changed
 * (answer-timeline.ts); "since the design review" asks for days after a meeting, not its matter.
 */
const ASKS_CHANGES_AFTER =
  /^\s*what (?:has |have )?(?:changed|did (?:we|they|you|the team) change|(?:are|were) (?:we|they) changing|will change)\s+(?:after|following)\s+(.+?)[\s?.!]*$/i;

export const changedAfterMatter = (question: string) => question.match(ASKS_CHANGES_AFTER)?.[1] ?? null;

/**
 * The matter a list of action items or open questions is asked about, at the end of the question:
 * "…for the job queue", "…about staging", "…after the outage" (its meeting's title may name it).
 * Decisions about a matter are retrieval's to answer: it tells a decision with what later meetings
 * changed (answer-timeline.ts).
 */
const ABOUT_MATTER = /\s(?:for|about|on|regarding|concerning|around|after|following)\s+([^?.!]+?)[\s?.!]*$/i;

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];

/** The list the question asks for, or null when it asks about something else. */
export function knowledgeListQuestion(question: string, now: Date): KnowledgeListQuestion | null {
  const kind = KINDS.find(([pattern]) => pattern.test(question))?.[1];
  if (!kind) return null;
  const window = heldWindow(question, now);
  const asked = window ? question.replace(window.text, ' ') : question;
  if (wordsOf(asked).every((word) => LIST_WORDS.has(word))) return { kind, window, matter: null };
  const about = kind === 'decision' ? null : asked.match(ABOUT_MATTER);
  if (!about?.[1] || !wordsOf(asked.slice(0, about.index)).every((word) => LIST_WORDS.has(word))) return null;
  return { kind, window, matter: about[1].trim() };
}
