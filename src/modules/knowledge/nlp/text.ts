import { createRequire } from 'node:module';
import type WinkFn from 'wink-nlp';
import type { Model, WinkMethods } from 'wink-nlp';
import { CLOSED_CLASSES, FILLERS, FRAMING_WORDS } from './lexicon.ts';

/** A word as the extractor sees it: as said, normalised, stemmed, and its part of speech. */
export type Token = {
  value: string;
  /** Lower-case, contractions expanded ("n't" → "not", "yeah" → "yes"). */
  normal: string;
  /** Porter2 stem of the value ("controls" → "control", "decided" → "decid"). */
  stem: string;
  pos: string;
  /** Whether it says what the text is about (no stop word, filler, framing word, number or punctuation). */
  content: boolean;
};

const require = createRequire(import.meta.url);
let nlp: { methods: WinkMethods; stem: (word: string) => string } | null = null;
/** Distinct words whose stems are remembered; past this many the memory starts again. */
const REMEMBERED_STEMS = 50_000;

/**
 * The language model, loaded on first use (about 0.1 s and a few MB) so that an app that never
 * extracts never pays for it. Only the part-of-speech tagger runs: sentences come from the
 * transcript's own punctuation, and entities, negation and sentiment are not used. Its stemmer
 * (what `its.stem` applies to a token's value) is called once per distinct word: a meeting says
 * the same few thousand words over and over, and stemming each token anew was half of tokenising.
 */
function model() {
  if (!nlp) {
    const winkNLP = require('wink-nlp') as typeof WinkFn;
    const english = require('wink-eng-lite-web-model') as Model & {
      addons: { stem: (word: string) => string };
    };
    const stems = new Map<string, string>();
    nlp = {
      methods: winkNLP(english, ['pos']),
      stem: (word) => {
        let stem = stems.get(word);
        if (stem === undefined) {
          if (stems.size >= REMEMBERED_STEMS) stems.clear();
          stem = english.addons.stem(word);
          stems.set(word, stem);
        }
        return stem;
      },
    };
  }
  return nlp;
}

/** Letters, with inner hyphens ("kick-off"); no digits, no contraction left whole ("I'm"). */
const WORD = /^\p{L}[\p{L}-]*$/u;

export function tokenize(text: string): Token[] {
  const { methods, stem } = model();
  const { its } = methods;
  const tokens = methods.readDoc(text).tokens();
  const values = tokens.out(its.value);
  const normals = tokens.out(its.normal);
  const tags = tokens.out(its.pos);
  const stops = tokens.out(its.stopWordFlag) as unknown as boolean[];
  return values.map((value, index) => {
    const normal = normals[index] ?? value.toLowerCase();
    const pos = tags[index] ?? 'X';
    return {
      value,
      normal,
      stem: stem(value),
      pos,
      content:
        WORD.test(value) &&
        normal.length > 1 &&
        !stops[index] &&
        !FILLERS.has(normal) &&
        !FILLERS.has(value.toLowerCase()) &&
        !FRAMING_WORDS.has(normal) &&
        !CLOSED_CLASSES.has(pos),
    };
  });
}

/** The stems of a token list's content words, in order (with repeats). */
export const contentStems = (tokens: Token[]) =>
  tokens.filter((token) => token.content).map((token) => token.stem);

/**
 * What a text is about, comparably across meetings: its content words' stems, sorted,
 * de-duplicated, space-separated ("We decided to drop the rubber case." → "case drop rubber").
 */
export function subjectOf(text: string): string {
  return [...new Set(contentStems(tokenize(text)))].sort().join(' ');
}
