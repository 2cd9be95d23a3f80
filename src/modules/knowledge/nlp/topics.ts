import type { ExtractedTopic } from '../extraction.ts';
import { chapterOf as chapterIn } from './chapters.ts';
import type { Document, Sentence } from './document.ts';
import { CALENDAR_WORDS, GENERIC_ADJECTIVES, GENERIC_NOUNS } from './lexicon.ts';
import { commonest, type Mention, surfaceOf } from './phrases.ts';
import type { Token } from './text.ts';

/** A meeting has at most this many topics… */
const MAX_TOPICS = 10;
/** …each scoring at least this share of the best… */
const MIN_SHARE = 0.15;
/** …and mentioned this often, unless the transcript is short. */
const MIN_MENTIONS = 2;
const SHORT_WORDS = 400;

export const topicMinMentions = (doc: Document) => (doc.totalWords < SHORT_WORDS ? 1 : MIN_MENTIONS);
/** Two words said together name a thing more precisely than either alone. */
const PHRASE_BOOST = 1.5;
const MAX_KEYWORDS = 8;
/** Keywords name things and their qualities; verbs ("booked", "hated") read as noise in a list. */
const KEYWORD_CLASSES = new Set(['NOUN', 'PROPN', 'ADJ']);
/** A topic whose mentions mostly fall in the sentences of a better one sharing a word repeats it. */
const OVERLAP = 0.6;

type Candidate = { key: string; mentions: Mention[]; score: number };

/**
 * The meeting's keyphrases: nouns and two-word noun phrases, scored by how often they are said,
 * how specific they are (no generic words at all; a phrase more than a word) and how concentrated
 * they are in some chapters (a word spread evenly through every chapter says less about any of
 * them). The mentions come without those inside a longer phrase that is a candidate itself
 * (`withoutShadowed`).
 */
export function findTopics(doc: Document, mentions: Mention[][], chapterStarts: number[]): ExtractedTopic[] {
  const byKey = new Map<string, Mention[]>();
  for (const own of mentions)
    for (const mention of own) {
      const list = byKey.get(mention.key);
      if (list) list.push(mention);
      else byKey.set(mention.key, [mention]);
    }
  const minMentions = topicMinMentions(doc);

  const chapterOf = (sentence: Sentence) => chapterIn(chapterStarts, sentence);
  const chapterWords = new Array<number>(chapterStarts.length + 1).fill(0);
  for (const sentence of doc.sentences) {
    const index = chapterOf(sentence);
    chapterWords[index] = (chapterWords[index] as number) + sentence.words;
  }

  const candidates: Candidate[] = [];
  for (const [key, list] of byKey) {
    if (list.length < minMentions) continue;
    const concentration = concentrationOf(list, chapterOf, chapterWords);
    candidates.push({
      key,
      mentions: list,
      score: list.length * (key.includes(' ') ? PHRASE_BOOST : 1) * (0.6 + 0.4 * concentration),
    });
  }
  candidates.sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
  const best = candidates[0]?.score ?? 0;
  const chosen: Candidate[] = [];
  for (const candidate of candidates) {
    if (chosen.length === MAX_TOPICS || candidate.score < best * MIN_SHARE) break;
    if (!chosen.some((other) => repeats(candidate, other))) chosen.push(candidate);
  }

  const keywords = keywordTokens(doc);
  return chosen.map((candidate) => ({
    key: candidate.key,
    name: commonest(candidate.mentions.map((mention) => mention.surface)),
    keywords: keywordsOf(doc, keywords, candidate),
    mentions: candidate.mentions.length,
    score: Math.round((candidate.score / best) * 1000) / 1000,
    firstStart: Math.min(...candidate.mentions.map((mention) => mention.sentence.start)),
  }));
}

/** "control button" beside "voice control": a shared word, and said mostly in the same sentences. */
function repeats(candidate: Candidate, better: Candidate): boolean {
  const words = better.key.split(' ');
  if (!candidate.key.split(' ').some((word) => words.includes(word))) return false;
  const sentences = new Set(better.mentions.map((mention) => mention.sentence));
  const shared = candidate.mentions.filter((mention) => sentences.has(mention.sentence)).length;
  return shared >= candidate.mentions.length * OVERLAP;
}

/**
 * 1 when a phrase is said in one chapter only, 0 when its rate is the same in every chapter:
 * one minus the normalised entropy of its rate per chapter. A meeting of one chapter gives 1.
 */
function concentrationOf(
  list: Mention[],
  chapterOf: (sentence: Sentence) => number,
  words: number[],
): number {
  if (words.length < 2) return 1;
  const rates = words.map(() => 0);
  for (const mention of list) {
    const index = chapterOf(mention.sentence);
    rates[index] = (rates[index] as number) + 1 / Math.max(1, words[index] as number);
  }
  const total = rates.reduce((sum, rate) => sum + rate, 0);
  const entropy = rates.reduce(
    (sum, rate) => (rate > 0 ? sum - (rate / total) * Math.log(rate / total) : sum),
    0,
  );
  return 1 - entropy / Math.log(words.length);
}

/**
 * The tokens of each sentence that may be a topic's keyword, and how often each of their stems is
 * said so in the whole meeting: read once for all the topics.
 */
function keywordTokens(doc: Document) {
  const bySentence = new Map<Sentence, Token[]>();
  const everywhere = new Map<string, number>();
  for (const sentence of doc.sentences) {
    const eligible = sentence.tokens.filter(
      (token) =>
        token.content &&
        KEYWORD_CLASSES.has(token.pos) &&
        token.normal.length >= 3 &&
        !GENERIC_NOUNS.has(token.normal) &&
        !GENERIC_ADJECTIVES.has(token.normal) &&
        !doc.speakerNames.has(token.normal) &&
        !CALENDAR_WORDS.has(token.normal),
    );
    for (const token of eligible) everywhere.set(token.stem, (everywhere.get(token.stem) ?? 0) + 1);
    bySentence.set(sentence, eligible);
  }
  return { bySentence, everywhere };
}

/**
 * Words said in the same sentences as the topic, most telling first: how often together, times
 * the share of the word's uses that are with the topic (so that words said everywhere rank low).
 */
function keywordsOf(
  doc: Document,
  { bySentence, everywhere }: ReturnType<typeof keywordTokens>,
  topic: Candidate,
): string[] {
  const own = new Set(topic.key.split(' '));
  const sentences = new Set(topic.mentions.map((mention) => mention.sentence));
  const together = new Map<string, { count: number; forms: string[] }>();
  for (const sentence of doc.sentences) {
    if (!sentences.has(sentence)) continue;
    for (const token of bySentence.get(sentence) ?? []) {
      if (own.has(token.stem)) continue;
      const entry = together.get(token.stem) ?? { count: 0, forms: [] };
      entry.count++;
      entry.forms.push(surfaceOf(token));
      together.set(token.stem, entry);
    }
  }
  return [...together.entries()]
    .map(([stem, { count, forms }]) => ({
      word: commonest(forms),
      score: (count * count) / (everywhere.get(stem) ?? count),
    }))
    .sort((a, b) => b.score - a.score || a.word.localeCompare(b.word))
    .slice(0, MAX_KEYWORDS)
    .map((keyword) => keyword.word);
}
