import { stemmer } from 'stemmer';

/**
 * The baseline every knowledge-quality figure is reported beside: plain BM25 (k1 1.2, b 0.75) over
 * single transcript cues, words lower-cased and Porter-stemmed. Search returns the best cues of
 * the whole library as moments; question answering cites the five best cues of the scoped
 * meeting and answers with the three best joined, cut to 120 words. Deliberately simple: what
 * fifty lines of code give, so that the service is measured against something it must beat.
 */

const K1 = 1.2;
const B = 0.75;
const ANSWER_CUES = 3;
const ANSWER_WORDS = 120;

export type Cue = { videoId: string; index: number; start: number; end: number; text: string };

export const baselineTerms = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map(stemmer);

export type Bm25Index = { cues: Cue[]; search(query: string, limit: number, videoId?: string): Cue[] };

/** A BM25 index over `cues`; idf is computed over all of them (the library the search runs on). */
export function bm25Index(cues: Cue[]): Bm25Index {
  const frequencies = cues.map((cue) => {
    const counts = new Map<string, number>();
    for (const term of baselineTerms(cue.text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    return counts;
  });
  const lengths = frequencies.map((counts) => [...counts.values()].reduce((sum, n) => sum + n, 0));
  const averageLength = lengths.reduce((sum, n) => sum + n, 0) / Math.max(cues.length, 1);
  const postings = new Map<string, number[]>();
  frequencies.forEach((counts, at) => {
    for (const term of counts.keys()) {
      const list = postings.get(term);
      if (list) list.push(at);
      else postings.set(term, [at]);
    }
  });
  const idf = (term: string) => {
    const holding = postings.get(term)?.length ?? 0;
    return Math.log(1 + (cues.length - holding + 0.5) / (holding + 0.5));
  };
  return {
    cues,
    search(query, limit, videoId) {
      const scores = new Map<number, number>();
      for (const term of new Set(baselineTerms(query))) {
        const weight = idf(term);
        for (const at of postings.get(term) ?? []) {
          if (videoId && cues[at]?.videoId !== videoId) continue;
          const tf = frequencies[at]?.get(term) ?? 0;
          const norm = tf + K1 * (1 - B + (B * (lengths[at] ?? 0)) / averageLength);
          scores.set(at, (scores.get(at) ?? 0) + (weight * tf * (K1 + 1)) / norm);
        }
      }
      return [...scores.entries()]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, limit)
        .map(([at]) => cues[at] as Cue);
    },
  };
}

/** The baseline's answer from the best cues of a meeting: the top three joined, cut to 120 words. */
export function baselineAnswer(ranked: Cue[]): string {
  return ranked
    .slice(0, ANSWER_CUES)
    .map((cue) => cue.text)
    .join(' ')
    .split(/\s+/)
    .slice(0, ANSWER_WORDS)
    .join(' ');
}
