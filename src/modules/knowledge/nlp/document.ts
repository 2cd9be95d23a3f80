import { splitSentences } from '../../ai/sentences.ts';
import type { TranscriptTurn } from '../extraction.ts';
import { contentStems, type Token, tokenize } from './text.ts';

/** A sentence of a turn, with where it sits in the turn's text and its words analysed. */
export type Sentence = {
  /** Position of its turn in the transcript's turn list. */
  turn: number;
  /** Position among all the transcript's sentences. */
  order: number;
  /** Where the sentence starts in its turn's text. */
  offset: number;
  text: string;
  start: number;
  end: number;
  speaker: string | null;
  words: number;
  tokens: Token[];
  /** Content-word stems in order, with repeats. */
  stems: string[];
};

/** A transcript analysed once for every part of the extraction. */
export type Document = {
  turns: TranscriptTurn[];
  sentences: Sentence[];
  /** The sentences of each turn (a turn of fewer than four words has none). */
  byTurn: Sentence[][];
  /** Lower-case words of the speakers' labels that are names, not roles ("maria", not "manager"). */
  speakerNames: Set<string>;
  totalWords: number;
  start: number;
  end: number;
};

export function analyse(turns: TranscriptTurn[]): Document {
  const sentences: Sentence[] = [];
  const byTurn: Sentence[][] = [];
  let totalWords = 0;
  turns.forEach((turn, position) => {
    const own: Sentence[] = [];
    let cursor = 0;
    for (const span of splitSentences(turn)) {
      const offset = turn.text.indexOf(span.text, cursor);
      cursor = offset + span.text.length;
      const tokens = tokenize(span.text);
      const sentence = {
        ...span,
        turn: position,
        order: sentences.length,
        offset,
        speaker: turn.speaker,
        tokens,
        stems: contentStems(tokens),
      };
      own.push(sentence);
      sentences.push(sentence);
    }
    byTurn.push(own);
    totalWords += turn.text.split(/\s+/).filter(Boolean).length;
  });
  return {
    turns,
    sentences,
    byTurn,
    speakerNames: speakerNames(turns, sentences),
    totalWords,
    start: turns.reduce((first, turn) => Math.min(first, turn.start), Number.POSITIVE_INFINITY),
    end: turns.reduce((last, turn) => Math.max(last, turn.end), 0),
  };
}

/**
 * Words of speaker labels that are names, not roles: "Maria Lopez" gives maria and lopez, while
 * "Project Manager" gives nothing when the meeting says "project" and "manager" in lower case
 * (a role's words may well be what a meeting is about; a name is written capitalised).
 */
function speakerNames(turns: TranscriptTurn[], sentences: Sentence[]): Set<string> {
  const lowerCase = new Set<string>();
  for (const sentence of sentences) {
    for (const token of sentence.tokens) if (token.value === token.normal) lowerCase.add(token.normal);
  }
  const names = new Set<string>();
  for (const label of new Set(turns.map((turn) => turn.speaker))) {
    for (const word of label?.split(/[^\p{L}'-]+/u) ?? []) {
      const lower = word.toLowerCase();
      if (word.length > 1 && /^\p{Lu}/u.test(word) && !lowerCase.has(lower)) names.add(lower);
    }
  }
  return names;
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A part of a sentence (characters `from`–`to` of its text), trimmed, with the share of the
 * sentence's time its words take: speech runs at an even pace through a turn, as the sentence
 * times themselves assume.
 */
export function clip(
  sentence: Sentence,
  from: number,
  to: number,
): { text: string; start: number; end: number } {
  const raw = sentence.text.slice(from, to);
  const text = raw.trim();
  if (text === sentence.text) return { text, start: sentence.start, end: sentence.end };
  const before = wordsIn(sentence.text.slice(0, from + (raw.length - raw.trimStart().length)));
  const duration = sentence.end - sentence.start;
  const per = sentence.words > 0 ? duration / sentence.words : 0;
  return {
    text,
    start: Math.max(sentence.start, round(sentence.start + per * before)),
    end: Math.min(sentence.end, round(sentence.start + per * (before + wordsIn(text)))),
  };
}

/** Items longer than this are cut to the clauses around their cue: a 200-word ramble is no item. */
export const MAX_ITEM_WORDS = 40;
/** A cut keeps at least this many words, reaching back for context. */
const MIN_ITEM_WORDS = 12;
const CLAUSE_END = /[,;:]\s+|\s[-–—]\s+|[.?!]\s+/g;

/**
 * The clauses of a sentence around character `at` (its cue), at most `MAX_ITEM_WORDS` words,
 * reaching forward first (what was decided follows "we decided"). A sentence short enough is
 * kept whole.
 */
export const around = (sentence: Sentence, at: number) => clip(sentence, ...clausesAround(sentence, at));

/** The character range `around` keeps. */
export function clausesAround(sentence: Sentence, at: number): [from: number, to: number] {
  const { text } = sentence;
  if (sentence.words <= MAX_ITEM_WORDS) return [0, text.length];
  const bounds = [
    0,
    ...Array.from(text.matchAll(CLAUSE_END), (match) => match.index + match[0].length),
    text.length,
  ];
  let index = bounds.findLastIndex((bound) => bound <= at);
  if (index === bounds.length - 1) index--;
  let from = bounds[index] as number;
  let to = bounds[index + 1] as number;
  let next = index + 2;
  while (next < bounds.length && wordsIn(text.slice(from, bounds[next])) <= MAX_ITEM_WORDS)
    to = bounds[next++] as number;
  let previous = index - 1;
  while (previous >= 0 && wordsIn(text.slice(from, to)) < MIN_ITEM_WORDS) {
    if (wordsIn(text.slice(bounds[previous], to)) > MAX_ITEM_WORDS) break;
    from = bounds[previous--] as number;
  }
  if (wordsIn(text.slice(from, to)) > MAX_ITEM_WORDS) {
    // One clause too long on its own: the words from the cue on, or those up to it at its end.
    if (wordsIn(text.slice(at, to)) >= MIN_ITEM_WORDS) {
      from = at;
      to = at + nthWordEnd(text.slice(at, to), MAX_ITEM_WORDS);
    } else {
      from = lastWordsStart(text.slice(0, to), MAX_ITEM_WORDS);
    }
  }
  return [from, to];
}

/** Where the `count`th word of a text ends (or the text's end). */
function nthWordEnd(text: string, count: number): number {
  let seen = 0;
  for (const match of text.matchAll(/\S+/g)) {
    if (++seen === count) return match.index + match[0].length;
  }
  return text.length;
}

/** Where the last `count` words of a text start. */
function lastWordsStart(text: string, count: number): number {
  const starts = Array.from(text.matchAll(/\S+/g), (match) => match.index);
  return starts[Math.max(0, starts.length - count)] ?? 0;
}
