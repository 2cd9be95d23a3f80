/**
 * Where in a transcript the answer to a question is said: every turn scored with BM25 over the
 * question's words, then smoothed with its neighbours (an answer in a meeting runs over several
 * turns), and the best few-turn stretches picked apart from each other. Pure: the caller loads
 * the turns' stemmed words (PostgreSQL's text search) and the words' weights (their idf in the
 * scope searched), so that the same ranking serves search moments and cited answers.
 */

/** A transcript turn with its stemmed words and how often it says each. */
export type TermTurn = {
  videoId: string;
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
  /** Stemmed word → occurrences. */
  terms: Map<string, number>;
  /** Words in the turn, stop words included (BM25's document length). */
  length: number;
};

/** The question as ranking needs it: each stemmed word's weight, and the speakers it names. */
export type QuestionWeights = {
  /** Stemmed word → weight (its idf in the scope). */
  weights: Map<string, number>;
  /** Lower-case names of speakers the question names ("what did Kirsty think"). */
  speakers?: Set<string>;
  /**
   * Lower-case names of speakers the question names as the ones replied to ("Who disagreed with
   * Maya?"): another speaker's turn right after one of theirs counts more.
   */
  repliedTo?: Set<string>;
  /**
   * Per video, how much more its turns count (0: no more): a meeting whose title says what the
   * question asks about ("the search outage of January 14") is where to look first.
   */
  videoBoost?: Map<string, number>;
  /**
   * Words the question's kind adds to what it asks ("cause", "reason" for a "why"): they count in
   * a turn only where its region says at least half of the question's own weight.
   */
  cues?: Set<string>;
};

export type RankedStretch = {
  videoId: string;
  /** The turn the stretch is centred on: its best. */
  bestIndex: number;
  firstIndex: number;
  lastIndex: number;
  start: number;
  end: number;
  score: number;
  /** The share of the question's weight said in the stretch (0–1): how much of it is answered. */
  coverage: number;
  turns: TermTurn[];
};

export const STRETCH_DEFAULTS = {
  k1: 1.2,
  /** Light length normalisation: a long turn that holds the words is usually the one that explains. */
  b: 0.3,
  /**
   * What each neighbour adds of its own score, nearest first. For a question the turns before
   * count more than those after: a topic is raised in words the question uses, and answered in the
   * turns that follow (QMSum, in process: 0.828, against 0.822 with the same total weight split
   * evenly). Words searched for as words weigh their neighbours evenly (`EVEN_NEIGHBOURS`): the
   * stretch is centred where they are said.
   */
  neighbourWeights: { before: [0.75, 0.4], after: [0.25, 0.1] } as { before: number[]; after: number[] },
  /** A turn by a speaker the question names (or replying to one it names as replied to) counts this much more. */
  speakerBoost: 3,
  /** Stretches are this many turns on either side of their best turn, at most. */
  radius: 2,
  /** Turns this close to a picked stretch's best turn are not the centre of another. */
  separation: 2,
  /** Turns on either side that make a turn's region: where the question's words gather. */
  regionRadius: 20,
  /** How much the share of the question's weight said in a turn's region adds (scores are scaled to the best turn's). */
  regionWeight: 0.5,
};
export type StretchOptions = typeof STRETCH_DEFAULTS;
/** The share of the question's own weight a turn's region must say for the question's cues to count in it. */
const CUE_REGION_SHARE = 0.5;
export const EVEN_NEIGHBOURS = { before: [0.5, 0.25], after: [0.5, 0.25] };

/** Each turn's BM25 score for the question, in the order given. */
export function turnScores(
  turns: TermTurn[],
  question: QuestionWeights,
  { k1, b, speakerBoost, regionRadius }: StretchOptions = STRETCH_DEFAULTS,
): number[] {
  const averageLength = turns.reduce((sum, turn) => sum + turn.length, 0) / Math.max(turns.length, 1) || 1;
  const cueScores: number[] = [];
  const asked = turns.map((turn) => {
    let score = 0;
    let cue = 0;
    for (const [term, weight] of question.weights) {
      const tf = turn.terms.get(term);
      if (!tf) continue;
      const part = (weight * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * turn.length) / averageLength));
      if (question.cues?.has(term)) cue += part;
      else score += part;
    }
    cueScores.push(cue);
    return score;
  });
  // A cue counts only where the question's own words are said around it: a "root cause" given in
  // a discussion of something else answers no "why" asked here.
  const regions = question.cues?.size
    ? regionCoverage(
        turns,
        new Map([...question.weights].filter(([term]) => !question.cues?.has(term))),
        regionRadius,
      )
    : [];
  const spokenBy = (names: Set<string> | undefined, turn: TermTurn | undefined) =>
    names !== undefined && turn?.speaker != null && names.has(turn.speaker.toLowerCase());
  const replies = (at: number) => {
    const turn = turns[at];
    const before = turns[at - 1];
    return (
      adjacent(before, turn, 1) && spokenBy(question.repliedTo, before) && !spokenBy(question.repliedTo, turn)
    );
  };
  return turns.map((turn, at) => {
    let score = asked[at] as number;
    if ((regions[at] ?? 0) >= CUE_REGION_SHARE) score += cueScores[at] as number;
    score *= 1 + (question.videoBoost?.get(turn.videoId) ?? 0);
    if (score > 0 && (spokenBy(question.speakers, turn) || replies(at))) score *= speakerBoost;
    return score;
  });
}

/**
 * For each turn, the share of the words' weight (stemmed word → weight) said within `radius`
 * turns of it (same video): a sliding window of word counts, so linear in the number of turns.
 * All 0 when the words weigh nothing.
 */
function regionCoverage(turns: TermTurn[], weights: Map<string, number>, radius: number) {
  const totalWeight = [...weights.values()].reduce((sum, weight) => sum + weight, 0);
  if (totalWeight <= 0) return turns.map(() => 0);
  const counts = new Map<string, number>();
  let covered = 0;
  const add = (turn: TermTurn | undefined, delta: 1 | -1) => {
    if (!turn) return;
    for (const term of turn.terms.keys()) {
      const weight = weights.get(term);
      if (weight === undefined) continue;
      const before = counts.get(term) ?? 0;
      counts.set(term, before + delta);
      if (before === 0 && delta === 1) covered += weight;
      if (before === 1 && delta === -1) covered -= weight;
    }
  };
  const result: number[] = [];
  let low = 0;
  let high = -1;
  for (let at = 0; at < turns.length; at++) {
    const video = (turns[at] as TermTurn).videoId;
    while (high + 1 < turns.length && high + 1 <= at + radius && turns[high + 1]?.videoId === video)
      add(turns[++high], 1);
    while (low < at - radius || turns[low]?.videoId !== video) add(turns[low++], -1);
    result.push(covered / totalWeight);
  }
  return result;
}

/** Whether two turns, in the order given, follow each other in one transcript. */
const adjacent = (a: TermTurn | undefined, b: TermTurn | undefined, gap: number) =>
  a !== undefined && b !== undefined && a.videoId === b.videoId && b.index - a.index === gap;

/**
 * The best stretches, best first, none overlapping another: each centred on a turn whose score
 * plus its neighbours' (see `neighbourWeights`) is the highest left, reaching `radius` turns
 * either way for context. `turns` must be in transcript order per video.
 */
export function rankStretches(
  turns: TermTurn[],
  question: QuestionWeights,
  limit: number,
  options: StretchOptions = STRETCH_DEFAULTS,
): RankedStretch[] {
  const { neighbourWeights, radius, separation } = options;
  const own = turnScores(turns, question, options);
  const smoothed = own.map((score, at) => {
    let total = score;
    for (const [side, weights] of [
      [-1, neighbourWeights.before],
      [1, neighbourWeights.after],
    ] as const)
      weights.forEach((weight, distance) => {
        const other = at + side * (distance + 1);
        if (adjacent(turns[Math.min(at, other)], turns[Math.max(at, other)], distance + 1))
          total += weight * (own[other] ?? 0);
      });
    return total;
  });
  const totalWeight = [...question.weights.values()].reduce((sum, weight) => sum + weight, 0);
  if (options.regionWeight > 0 && totalWeight > 0) {
    const top = Math.max(...smoothed) || 1;
    const regions = regionCoverage(turns, question.weights, options.regionRadius);
    for (let at = 0; at < smoothed.length; at++)
      smoothed[at] = (smoothed[at] as number) / top + options.regionWeight * (regions[at] as number);
  }
  const order = smoothed
    .map((score, at) => ({ score, at }))
    .filter(({ at }) => (own[at] ?? 0) > 0)
    .sort((a, b) => b.score - a.score || a.at - b.at);
  const taken = new Set<number>();
  const stretches: RankedStretch[] = [];
  for (const { score, at } of order) {
    if (stretches.length >= limit) break;
    if (taken.has(at)) continue;
    // The stretch reaches `radius` turns either way, as far as the transcript goes and no other stretch is.
    let first = at;
    while (at - first < radius && adjacent(turns[first - 1], turns[first], 1) && !taken.has(first - 1))
      first--;
    let last = at;
    while (last - at < radius && adjacent(turns[last], turns[last + 1], 1) && !taken.has(last + 1)) last++;
    // Around a stretch, turns stay free for another only beyond its reach.
    for (let position = at - separation; position <= at + separation; position++) {
      if (
        position === at ||
        adjacent(turns[Math.min(at, position)], turns[Math.max(at, position)], Math.abs(position - at))
      )
        taken.add(position);
    }
    const span = turns.slice(first, last + 1);
    const said = new Set(span.flatMap((turn) => [...turn.terms.keys()]));
    let covered = 0;
    for (const [term, weight] of question.weights) if (said.has(term)) covered += weight;
    const best = turns[at] as TermTurn;
    stretches.push({
      videoId: best.videoId,
      bestIndex: best.index,
      firstIndex: (turns[first] as TermTurn).index,
      lastIndex: (turns[last] as TermTurn).index,
      start: (turns[first] as TermTurn).start,
      end: (turns[last] as TermTurn).end,
      score,
      coverage: totalWeight > 0 ? covered / totalWeight : 0,
      turns: span,
    });
  }
  return stretches;
}
