import { createRequire } from 'node:module';
import type WinkFn from 'wink-nlp';
import type { ItsFunction, Model, WinkMethods } from 'wink-nlp';
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
let nlp: WinkMethods | null = null;

/**
 * The language model, loaded on first use (about 0.1 s and a few MB) so that an app that never
 * extracts never pays for it. Only the part-of-speech tagger runs: sentences come from the
 * transcript's own punctuation, and entities, negation and sentiment are not used.
 */
function model(): WinkMethods {
  if (!nlp) {
    const winkNLP = require('wink-nlp') as typeof WinkFn;
    nlp = winkNLP(require('wink-eng-lite-web-model') as Model, ['pos']);
  }
  return nlp;
}

/** Letters, with inner hyphens ("kick-off"); no digits, no contraction left whole ("I'm"). */
const WORD = /^\p{L}[\p{L}-]*$/u;

export function tokenize(text: string): Token[] {
  const { its } = model();
  const tokens = model().readDoc(text).tokens();
  const values = tokens.out(its.value);
  const normals = tokens.out(its.normal);
  // The typings declare `its.stem` with a raw-document argument that `out` does not accept.
  const stems = tokens.out(its.stem as unknown as ItsFunction<string>);
  const tags = tokens.out(its.pos);
  const stops = tokens.out(its.stopWordFlag) as unknown as boolean[];
  return values.map((value, index) => {
    const normal = normals[index] ?? value.toLowerCase();
    const pos = tags[index] ?? 'X';
    return {
      value,
      normal,
      stem: stems[index] ?? normal,
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
