import type { Chapter } from '../../../db/schema/knowledge.ts';
import type { Document, Sentence } from './document.ts';
import { commonest, type Mention } from './phrases.ts';
import { cosine, documentFrequency } from './vectors.ts';

/** Below this many words a transcript is one chapter. */
const MIN_WORDS_TO_SPLIT = 400;
/** A chapter lasts at least an eighth of the meeting, within these bounds (seconds)… */
const MIN_CHAPTER_SECONDS = [45, 180] as const;
/** …holds at least this many words… */
const MIN_CHAPTER_WORDS = 100;
/** …and a longer one is cut again at its deepest valley. */
const MAX_CHAPTER_SECONDS = 20 * 60;
/** A turn this long may change subject inside: its sentences are candidate boundaries too. */
const LONG_TURN_WORDS = 120;
/** At most one chapter per this many words (but two for any meeting long enough to split). */
const WORDS_PER_CHAPTER = 1200;
/** Titles name at most this many phrases. */
const TITLE_PHRASES = 3;

type Gap = { order: number; similarity: number; depth: number };

const clamp = (value: number, [low, high]: readonly [number, number]) => Math.min(high, Math.max(low, value));

/**
 * Where the meeting changes subject, by lexical cohesion (TextTiling, Hearst 1997): at every turn
 * start, compare the content words of a block before with a block after; a subject ends where that
 * similarity falls into a deep valley. Valleys deeper than the mean by half a standard deviation
 * become boundaries, deepest first, as long as every chapter keeps a fair length.
 */
export function chapterStarts(doc: Document): number[] {
  const { sentences } = doc;
  const duration = doc.end - doc.start;
  if (doc.totalWords < MIN_WORDS_TO_SPLIT || sentences.length < 4) return [];
  const gaps = cohesion(doc);
  if (gaps.length === 0) return [];

  const minSeconds = clamp(duration / 8, MIN_CHAPTER_SECONDS);
  const starts: number[] = [];
  const fits = (order: number) => {
    const bounds = [0, ...starts, sentences.length].sort((a, b) => a - b);
    const after = bounds.findIndex((bound) => bound > order);
    const previous = bounds[after - 1] as number;
    const next = bounds[after] as number;
    if (previous === order) return false;
    return long(sentences, previous, order, minSeconds) && long(sentences, order, next, minSeconds);
  };

  const depths = gaps.map((gap) => gap.depth);
  const mean = depths.reduce((sum, depth) => sum + depth, 0) / depths.length;
  const sd = Math.sqrt(depths.reduce((sum, depth) => sum + (depth - mean) ** 2, 0) / depths.length);
  const byDepth = [...gaps].sort((a, b) => b.depth - a.depth);
  const maxStarts = Math.max(1, Math.floor(doc.totalWords / WORDS_PER_CHAPTER) - 1);
  for (const gap of byDepth) {
    if (starts.length >= maxStarts || gap.depth <= 0 || gap.depth < mean + sd / 2) break;
    if (fits(gap.order)) starts.push(gap.order);
  }
  // A chapter of more than a quarter of an hour is cut at its deepest valley that leaves both parts fair.
  for (let changed = true; changed; ) {
    changed = false;
    const bounds = [0, ...starts, sentences.length].sort((a, b) => a - b);
    for (let index = 0; index < bounds.length - 1; index++) {
      const from = bounds[index] as number;
      const to = bounds[index + 1] as number;
      if (timeAt(sentences, to, doc.end) - (sentences[from] as Sentence).start <= MAX_CHAPTER_SECONDS)
        continue;
      const cut = byDepth.find((gap) => gap.order > from && gap.order < to && fits(gap.order));
      if (cut) {
        starts.push(cut.order);
        changed = true;
      }
    }
  }
  return starts.sort((a, b) => a - b);
}

/** Which chapter (by the sentences `starts` opens them at) a sentence belongs to. */
export function chapterOf(starts: number[], sentence: Sentence): number {
  let index = 0;
  while (index < starts.length && (starts[index] as number) <= sentence.order) index++;
  return index;
}

const timeAt = (sentences: Sentence[], order: number, end: number) => sentences[order]?.start ?? end;

/** Whether sentences `from` to `to` (exclusive) are long enough for a chapter. */
function long(sentences: Sentence[], from: number, to: number, minSeconds: number): boolean {
  const part = sentences.slice(from, to);
  const first = part[0];
  const last = part.at(-1);
  if (!first || !last) return false;
  const words = part.reduce((sum, sentence) => sum + sentence.words, 0);
  return last.end - first.start >= minSeconds && words >= MIN_CHAPTER_WORDS;
}

/**
 * The cohesion at every candidate boundary (a turn's first sentence, or any sentence of a long
 * turn): the cosine of idf-weighted content words in a block before and a block after, smoothed
 * over neighbours, and its depth (how far it lies below the peaks on either side).
 */
function cohesion(doc: Document): Gap[] {
  const { sentences } = doc;
  // Every stem a block reads is some sentence's, so in `df`; each idf is taken once.
  const weights = new Map(
    [...documentFrequency(sentences)].map(([stem, n]) => [stem, Math.log(sentences.length / n)]),
  );
  const idf = (stem: string) => weights.get(stem) ?? Math.log(sentences.length);
  const totalStems = sentences.reduce((sum, sentence) => sum + sentence.stems.length, 0);
  const blockStems = clamp(Math.round(totalStems / 12), [20, 100]);

  const block = (from: number, step: 1 | -1) => {
    const vector = new Map<string, number>();
    let count = 0;
    for (let order = from; order >= 0 && order < sentences.length && count < blockStems; order += step) {
      for (const stem of (sentences[order] as Sentence).stems) {
        vector.set(stem, (vector.get(stem) ?? 0) + idf(stem));
        count++;
      }
    }
    return vector;
  };

  const raw: Array<{ order: number; similarity: number }> = [];
  for (let order = 1; order < sentences.length; order++) {
    const sentence = sentences[order] as Sentence;
    const turnStart = sentence.turn !== (sentences[order - 1] as Sentence).turn;
    const turnWords = doc.byTurn[sentence.turn]?.reduce((sum, own) => sum + own.words, 0) ?? 0;
    if (!turnStart && turnWords < LONG_TURN_WORDS) continue;
    raw.push({ order, similarity: cosine(block(order - 1, -1), block(order, 1)) });
  }
  const smooth = raw.map((_, index) => {
    const around = raw.slice(Math.max(0, index - 1), index + 2);
    return around.reduce((sum, other) => sum + other.similarity, 0) / around.length;
  });
  return raw.map((gap, index) => {
    let left = index;
    while (left > 0 && (smooth[left - 1] as number) >= (smooth[left] as number)) left--;
    let right = index;
    while (right < smooth.length - 1 && (smooth[right + 1] as number) >= (smooth[right] as number)) right++;
    const here = smooth[index] as number;
    return {
      order: gap.order,
      similarity: here,
      depth: (smooth[left] as number) + (smooth[right] as number) - 2 * here,
    };
  });
}

/**
 * The chapters that start at those sentences, contiguous from the first turn's start to the last
 * turn's end (a chapter starts where its first sentence's turn starts), each titled by the phrases
 * it mentions most and other chapters least.
 */
export function buildChapters(
  doc: Document,
  starts: number[],
  mentions: Mention[][],
  fallback: string,
): Chapter[] {
  const bounds = [0, ...starts, doc.sentences.length];
  const parts = bounds.slice(0, -1).map((from, index) => ({ from, to: bounds[index + 1] as number }));
  const counts = parts.map(({ from, to }) => {
    const count = new Map<string, string[]>();
    for (const own of mentions.slice(from, to)) {
      for (const mention of own) {
        const forms = count.get(mention.key);
        if (forms) forms.push(mention.surface);
        else count.set(mention.key, [mention.surface]);
      }
    }
    return count;
  });
  const spread = new Map<string, number>();
  for (const count of counts) for (const key of count.keys()) spread.set(key, (spread.get(key) ?? 0) + 1);

  return parts.map(({ from }, index) => {
    const sentence = doc.sentences[from];
    const start = index === 0 || !sentence ? doc.start : chapterStart(doc, sentence);
    const next = doc.sentences[bounds[index + 1] as number];
    const end = next ? chapterStart(doc, next) : doc.end;
    const title = titleOf(counts[index] as Map<string, string[]>, spread, parts.length);
    return { title: title ?? (parts.length === 1 ? fallback : `Part ${index + 1}`), start, end };
  });
}

/** A chapter starts with the turn of its first sentence, unless it starts inside a long turn. */
function chapterStart(doc: Document, sentence: Sentence): number {
  const first = doc.byTurn[sentence.turn]?.[0];
  return first === sentence ? (doc.turns[sentence.turn]?.start ?? sentence.start) : sentence.start;
}

/** "Remote control, buttons and battery": the chapter's most telling phrases, without overlap. */
function titleOf(count: Map<string, string[]>, spread: Map<string, number>, chapters: number): string | null {
  const scored = [...count.entries()]
    .map(([key, forms]) => ({
      key,
      name: commonest(forms),
      score:
        forms.length *
        (key.includes(' ') ? 1.5 : 1) *
        Math.log(1 + (chapters + 1) / (spread.get(key) ?? 1)) *
        (forms.length > 1 ? 1 : 0.5),
    }))
    .sort((a, b) => b.score - a.score || a.key.localeCompare(b.key));
  const chosen: typeof scored = [];
  for (const candidate of scored) {
    if (chosen.length === TITLE_PHRASES) break;
    const words = candidate.key.split(' ');
    const overlapping = chosen.findIndex((other) =>
      other.key.split(' ').some((word) => words.includes(word)),
    );
    if (overlapping < 0) chosen.push(candidate);
    else if (
      words.length > 1 &&
      (chosen[overlapping] as (typeof scored)[number]).key.split(' ').length === 1
    ) {
      // "remote control" says more than the "remote" chosen before it.
      chosen[overlapping] = candidate;
    }
  }
  if (chosen.length === 0) return null;
  const names = chosen.map((phrase) => phrase.name);
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${listed?.charAt(0).toUpperCase()}${listed?.slice(1)}`;
}
