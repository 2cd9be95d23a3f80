import { decisionCueIn } from '../knowledge/nlp/items.ts';
import { subjectOf } from '../knowledge/nlp/text.ts';
import { findDisagreements, type Statement } from './conflicts-rules.ts';

/**
 * When an answer quotes meetings held on different days, the order things were said in matters:
 * "search v2 ships on January 30" is not the answer once a later meeting moved it. These are the
 * rules the local engine writes a timeline by; they reuse the conflict rules of `GET
 * /ai/gaps/conflicts`, applied to what the answer quotes rather than to stored decisions.
 */

/** A passage said in a meeting: a sentence the answer leads with, or a turn that may change it. */
export type Said = { text: string; videoId: string; date: Date };

/** The UTC day of an instant: meetings are dated by day, as the conflicts endpoint dates them. */
const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** Whether the passages were said on more than one day: only then does an answer date them. */
export const spansDays = (dates: Date[]) => new Set(dates.map(dayOf)).size > 1;

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
    if (said.videoId === lead.videoId || dayOf(said.date) <= dayOf(lead.date)) continue;
    const [change] = findDisagreements([earlier, statement(said, 'later')]).filter(
      (pair) => pair.verdict.kind === 'superseded',
    );
    if (change && (!best || change.verdict.confidence > best.confidence)) {
      best = { said, confidence: change.verdict.confidence };
    }
  }
  return best?.said ?? null;
}
