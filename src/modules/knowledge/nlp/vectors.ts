import type { Sentence } from './document.ts';

/** In how many sentences each content stem occurs. */
export function documentFrequency(sentences: Sentence[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const sentence of sentences)
    for (const stem of new Set(sentence.stems)) df.set(stem, (df.get(stem) ?? 0) + 1);
  return df;
}

/** The cosine of two weighted bags of stems (0 when either is empty). */
export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  for (const [stem, weight] of a) dot += weight * (b.get(stem) ?? 0);
  const norm = (vector: Map<string, number>) =>
    Math.sqrt([...vector.values()].reduce((sum, w) => sum + w * w, 0));
  const denominator = norm(a) * norm(b);
  return denominator === 0 ? 0 : dot / denominator;
}
