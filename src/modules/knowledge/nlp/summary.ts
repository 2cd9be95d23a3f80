import type { KnowledgeQuote } from '../../../db/schema/knowledge.ts';
import type { ExtractedItem, ExtractedTopic } from '../extraction.ts';
import { chapterOf } from './chapters.ts';
import { around, type Document, MAX_ITEM_WORDS, type Sentence } from './document.ts';
import { FILLERS } from './lexicon.ts';
import { cosine, documentFrequency } from './vectors.ts';

/** Sentences shorter than this say too little on their own ("So that's the price then."). */
const MIN_WORDS = 8;
/** MMR's balance of centrality against repeating what is already chosen. */
const LAMBDA = 0.7;
/** A chapter no chosen sentence covers yet adds this much: a summary covers the whole meeting. */
const NEW_CHAPTER_BONUS = 0.1;
/** Sentences that state a decision or an outcome are what a summary is for. */
const DECISION_BOOST = 1.4;
const OUTCOME_BOOST = 1.15;
const OUTCOME =
  /\b(?:so we|the plan is|the goal is|the aim is|in summary|to sum up|overall|in conclusion|the main|the result|we need|we have to|the point is)\b/i;
/** A summary states; a question in it says less. */
const QUESTION_PENALTY = 0.5;
/** Each hesitation or restart costs a sentence this share of its score. */
const HESITATIONS = new Set(['uh', 'um', 'uhm', 'er', 'erm', 'mm', 'hmm']);
const HESITATION_COST = 0.2;
/** Words of topics count this much more in the meeting's centroid. */
const TOPIC_WEIGHT = 2;

/**
 * 1 for a clean sentence, less for one full of hesitation ("uh", "um"), restarts ("we 're not we
 * 're not") and fillers, which read badly quoted on their own.
 */
function fluency(sentence: Sentence): number {
  const words = sentence.tokens.filter((token) => token.pos !== 'PUNCT');
  let hesitations = 0;
  words.forEach((token, index) => {
    if (HESITATIONS.has(token.normal) || token.normal === words[index - 1]?.normal) hesitations++;
  });
  const fillers = words.filter((token) => FILLERS.has(token.normal)).length;
  return (1 - fillers / Math.max(1, words.length)) / (1 + HESITATION_COST * hesitations);
}

type Candidate = { sentence: Sentence; vector: Map<string, number>; score: number; chapter: number };

/** How many sentences: 1 for a few words, 3 for a short meeting, up to 6 for an hour. */
export function summaryLength(words: number): number {
  if (words < 200) return 1;
  if (words < 400) return 2;
  return Math.min(6, 3 + Math.floor(Math.log2(Math.max(1, words / 500))));
}

/**
 * A few sentences that cover the meeting, in time order: each sentence's centrality (cosine with
 * the meeting's idf-weighted centroid, its topics' words counted double), raised for decisions and
 * outcomes and lowered for filler and questions, chosen by maximal marginal relevance with a
 * bonus for every chapter not yet covered.
 */
export function summarise(
  doc: Document,
  items: ExtractedItem[],
  topics: ExtractedTopic[],
  chapterStarts: number[],
): KnowledgeQuote[] {
  const { sentences } = doc;
  const df = documentFrequency(sentences);
  const topicWords = new Set(topics.flatMap((topic) => topic.key.split(' ')));
  const weight = (stem: string) =>
    Math.log(1 + sentences.length / (df.get(stem) ?? 1)) * (topicWords.has(stem) ? TOPIC_WEIGHT : 1);
  const vectorOf = (sentence: Sentence) => {
    const vector = new Map<string, number>();
    for (const stem of sentence.stems) vector.set(stem, (vector.get(stem) ?? 0) + weight(stem));
    return vector;
  };
  const centroid = new Map<string, number>();
  for (const sentence of sentences)
    for (const [stem, w] of vectorOf(sentence)) centroid.set(stem, (centroid.get(stem) ?? 0) + w);

  let pool = sentences.filter((sentence) => sentence.words >= MIN_WORDS && sentence.words <= MAX_ITEM_WORDS);
  if (pool.length < summaryLength(doc.totalWords))
    pool = sentences.filter((sentence) => sentence.words >= MIN_WORDS);
  const candidates: Candidate[] = pool.map((sentence) => {
    const vector = vectorOf(sentence);
    const isDecision = items.some(
      (item) => item.kind === 'decision' && item.start >= sentence.start && item.end <= sentence.end,
    );
    const score =
      cosine(vector, centroid) *
      (isDecision ? DECISION_BOOST : OUTCOME.test(sentence.text) ? OUTCOME_BOOST : 1) *
      (sentence.text.trimEnd().endsWith('?') ? QUESTION_PENALTY : 1) *
      fluency(sentence);
    return { sentence, vector, score, chapter: chapterOf(chapterStarts, sentence) };
  });

  const best = Math.max(0, ...candidates.map((candidate) => candidate.score));
  const chosen: Candidate[] = [];
  const wanted = summaryLength(doc.totalWords);
  while (chosen.length < wanted) {
    let pick: Candidate | null = null;
    let pickValue = Number.NEGATIVE_INFINITY;
    for (const candidate of candidates) {
      if (chosen.includes(candidate)) continue;
      const redundancy = Math.max(0, ...chosen.map((other) => cosine(candidate.vector, other.vector)));
      const fresh = chosen.every((other) => other.chapter !== candidate.chapter) ? NEW_CHAPTER_BONUS : 0;
      const value = LAMBDA * (best > 0 ? candidate.score / best : 0) - (1 - LAMBDA) * redundancy + fresh;
      if (value > pickValue) {
        pick = candidate;
        pickValue = value;
      }
    }
    if (!pick) break;
    chosen.push(pick);
  }
  return chosen
    .sort((a, b) => a.sentence.order - b.sentence.order)
    .map(({ sentence }) => ({ ...around(sentence, 0), speaker: sentence.speaker }));
}
