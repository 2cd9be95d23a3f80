/**
 * Reciprocal Rank Fusion's constant: large enough that the first few places of one ranking do not
 * drown the other (rank 1 scores 1/61, rank 10 1/70), the value of Cormack et al. (2009).
 */
export const RRF_K = 60;

/**
 * Fuses rankings (ids, best first) by Reciprocal Rank Fusion: an id scores Σ 1/(k + rank) over the
 * rankings that hold it, ranks counted from 1. Only positions count, never the rankings' own
 * scores, which is what lets a lexical score and a cosine similarity be combined. Best first; ties
 * keep the order in which the ids were first seen (the first ranking's order, then the next's).
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k: number = RRF_K,
): Array<{ id: string; score: number }> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    const seen = new Set<string>();
    ranking.forEach((id, position) => {
      // A ranking that lists an id twice counts its best place only.
      if (seen.has(id)) return;
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + position + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
