/**
 * ROUGE-1, ROUGE-2 and ROUGE-L F1 between a candidate text and a reference, tokenized as
 * Google's rouge-score does by default: lower-cased, every run of characters other than a–z and
 * 0–9 is a separator. Stemming is the caller's choice: rouge-score's `use_stemmer=True` stems
 * tokens longer than three characters with Porter's algorithm, which `stem` reproduces when
 * given a Porter stemmer (the evaluations pass one). ROUGE-L is rouge-score's `rougeL`: the longest common
 * subsequence over the whole token sequences, ignoring sentence boundaries (not `rougeLsum`).
 */

export type RougeScore = { precision: number; recall: number; f1: number };
export type RougeScores = { rouge1: RougeScore; rouge2: RougeScore; rougeL: RougeScore };

export type RougeOptions = { stem?: (token: string) => string };

export function rougeTokens(text: string, { stem }: RougeOptions = {}): string[] {
  const tokens = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter(Boolean);
  return stem ? tokens.map((token) => (token.length > 3 ? stem(token) : token)) : tokens;
}

function score(overlap: number, candidateCount: number, referenceCount: number): RougeScore {
  const precision = candidateCount === 0 ? 0 : overlap / candidateCount;
  const recall = referenceCount === 0 ? 0 : overlap / referenceCount;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

function ngramCounts(tokens: string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** Clipped n-gram overlap: an n-gram counts at most as often as it occurs in the other text. */
function rougeN(candidate: string[], reference: string[], n: number): RougeScore {
  const candidateGrams = ngramCounts(candidate, n);
  const referenceGrams = ngramCounts(reference, n);
  let overlap = 0;
  for (const [gram, count] of candidateGrams) overlap += Math.min(count, referenceGrams.get(gram) ?? 0);
  return score(overlap, Math.max(0, candidate.length - n + 1), Math.max(0, reference.length - n + 1));
}

/** The length of the longest common subsequence, in O(n·m) time and O(m) memory. */
export function lcsLength(a: string[], b: string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  let current = new Array<number>(b.length + 1).fill(0);
  for (const token of a) {
    for (let j = 1; j <= b.length; j++) {
      current[j] =
        token === b[j - 1]
          ? (previous[j - 1] as number) + 1
          : Math.max(previous[j] as number, current[j - 1] as number);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length] as number;
}

export function rouge(candidate: string, reference: string, options: RougeOptions = {}): RougeScores {
  const candidateTokens = rougeTokens(candidate, options);
  const referenceTokens = rougeTokens(reference, options);
  return {
    rouge1: rougeN(candidateTokens, referenceTokens, 1),
    rouge2: rougeN(candidateTokens, referenceTokens, 2),
    rougeL: score(
      lcsLength(candidateTokens, referenceTokens),
      candidateTokens.length,
      referenceTokens.length,
    ),
  };
}
