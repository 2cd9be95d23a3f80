import { type RankedStretch, STRETCH_DEFAULTS, type TermTurn } from './stretches.ts';

/**
 * Questions about a part of a meeting rather than a matter: "Summarize the wrap up of the
 * meeting", "What were the professor's concluding comments?", "What did the manager say at the
 * very beginning of the meeting?". Their words say little of what was said there ("wrap up" is
 * seldom said in the wrap-up), so a meeting read whole is searched in that part only. On QMSum's
 * ten such questions the gold spans lie in the first 6 % of the meeting, or between 55 % and its end.
 */
export type MeetingPart = 'start' | 'end';

const END =
  /\b(?:wrap(?:ping)?[- ]?up|(?:concluding|closing|final) (?:remarks|comments|words|thoughts)|at the (?:very )?end of the meeting|end of the meeting|conclusion of the meeting|how did the meeting (?:end|close))\b/i;
const START =
  /\b(?:at the (?:very )?(?:beginning|start) of the meeting|(?:beginning|start) of the meeting|opening (?:remarks|comments|words)|how did the meeting (?:start|begin|open)|recap of the (?:last|previous) meeting)\b/i;

export function meetingPart(question: string): MeetingPart | undefined {
  if (END.test(question)) return 'end';
  if (START.test(question)) return 'start';
  return undefined;
}

/** The words that name the part ("wrap up", "concluding comments"): what is asked is where, not them. */
export const meetingPartWords = (question: string): string =>
  (question.match(END) ?? question.match(START))?.[0] ?? '';

/** The share of a meeting's turns that is its start or its end. */
const PART_SHARE = 0.2;

/** The turns of each meeting's part, from turns read whole (every turn of each meeting). */
export function partTurns(turns: TermTurn[], part: MeetingPart): TermTurn[] {
  const last = new Map<string, number>();
  for (const turn of turns) last.set(turn.videoId, Math.max(last.get(turn.videoId) ?? 0, turn.index));
  return turns.filter((turn) => {
    const final = last.get(turn.videoId) ?? 0;
    return part === 'start' ? turn.index <= final * PART_SHARE : turn.index >= final * (1 - PART_SHARE);
  });
}

/**
 * The part's stretches: those that say the question's words (`ranked`), and stretches spread
 * evenly over the rest of the part up to `limit` — the wrap-up of a meeting may be its last tenth
 * or its last fifth, and "wrap up" is seldom said in it — all in the order said, each told from
 * its first turn, as a person summing up that part would.
 */
export function partStretches(turns: TermTurn[], ranked: RankedStretch[], limit: number): RankedStretch[] {
  const filling = fillingStretches(turns, ranked, limit);
  return [...ranked, ...filling]
    .map((stretch) => ({ ...stretch, bestIndex: stretch.firstIndex }))
    .sort((a, b) => a.videoId.localeCompare(b.videoId) || a.firstIndex - b.firstIndex);
}

function fillingStretches(turns: TermTurn[], ranked: RankedStretch[], limit: number): RankedStretch[] {
  const size = 2 * STRETCH_DEFAULTS.radius + 1;
  const taken = (turn: TermTurn) =>
    ranked.some(
      (stretch) =>
        stretch.videoId === turn.videoId &&
        turn.index >= stretch.firstIndex &&
        turn.index <= stretch.lastIndex,
    );
  const free = turns.filter((turn) => !taken(turn));
  const count = Math.min(limit - ranked.length, Math.ceil(free.length / size));
  return Array.from({ length: Math.max(count, 0) }, (_, k) => {
    const from = Math.floor((k * free.length) / count);
    const span = free
      .slice(from, from + size)
      .filter(
        (turn, at, all) => turn.videoId === all[0]?.videoId && turn.index - (all[0]?.index ?? 0) === at,
      );
    const first = span[0] as TermTurn;
    const last = span.at(-1) as TermTurn;
    return {
      videoId: first.videoId,
      bestIndex: first.index,
      firstIndex: first.index,
      lastIndex: last.index,
      start: first.start,
      end: last.end,
      score: 0,
      coverage: 0,
      turns: span,
    };
  });
}
