import type { Document, Sentence } from './document.ts';
import { CALENDAR_WORDS, GENERIC_ADJECTIVES, GENERIC_NOUNS } from './lexicon.ts';
import type { Token } from './text.ts';

/** A noun or a two-word noun phrase a sentence mentions. */
export type Mention = {
  /** Stems, space-separated: "remote controls" and "remote control" are both `remot control`. */
  key: string;
  /** As said: lower-case, unless a proper noun written capitalised ("Brexit"). */
  surface: string;
  sentence: Sentence;
};

const HEADS = new Set(['NOUN', 'PROPN']);
const MODIFIERS = new Set(['NOUN', 'PROPN', 'ADJ']);
const MAX_PHRASE_WORDS = 3;

/** A word that can be part of a topic: a content word of three letters or more, no name or date. */
function eligible(doc: Document, token: Token): boolean {
  return (
    token.content &&
    token.normal.length > 2 &&
    !CALENDAR_WORDS.has(token.normal) &&
    !doc.speakerNames.has(token.normal)
  );
}

/** As said, lower-cased unless a capitalised proper noun (the model's normal form is American: "organizers"). */
export const surfaceOf = (token: Token) =>
  token.pos === 'PROPN' && /^\p{Lu}/u.test(token.value) ? token.value : token.value.toLowerCase();

/** Noun + noun, adjective + noun, and noun + what the tagger took for an adjective ("trade fair"). */
const isPhrase = (first: Token, second: Token) =>
  (MODIFIERS.has(first.pos) && HEADS.has(second.pos)) || (HEADS.has(first.pos) && second.pos === 'ADJ');

/**
 * The nouns (no generic ones: "meeting", "point") and noun phrases of two or three words ending in a
 * noun ("remote control", "voice control button") a sentence mentions. A phrase may hold one generic
 * noun ("price range") but not only generic ones, and no adjective of mere size or worth ("big booth").
 */
export function mentionsIn(doc: Document, sentence: Sentence): Mention[] {
  const mentions: Mention[] = [];
  const { tokens } = sentence;
  tokens.forEach((token, index) => {
    if (!eligible(doc, token)) return;
    if (HEADS.has(token.pos) && !GENERIC_NOUNS.has(token.normal)) {
      mentions.push({ key: token.stem, surface: surfaceOf(token), sentence });
    }
    const phrase = [token];
    for (const next of tokens.slice(index + 1, index + MAX_PHRASE_WORDS)) {
      const last = phrase.at(-1) as Token;
      if (!eligible(doc, next) || !isPhrase(last, next) || GENERIC_ADJECTIVES.has(last.normal)) break;
      if (GENERIC_ADJECTIVES.has(next.normal) || phrase.some((word) => word.stem === next.stem)) break;
      phrase.push(next);
      if (phrase.every((word) => GENERIC_NOUNS.has(word.normal))) continue;
      mentions.push({
        key: phrase.map((word) => word.stem).join(' '),
        surface: phrase.map(surfaceOf).join(' '),
        sentence,
      });
    }
  });
  return mentions;
}

/**
 * Drops the mentions said inside a longer phrase that is said often enough to be a topic itself:
 * "remote" in "remote control" is the remote control, not another topic. Per sentence, in place.
 */
export function withoutShadowed(mentions: Mention[][], minMentions: number): Mention[][] {
  const counts = new Map<string, number>();
  for (const own of mentions)
    for (const mention of own) counts.set(mention.key, (counts.get(mention.key) ?? 0) + 1);
  return mentions.map((own) => {
    const longer = own.filter(
      (mention) => mention.key.includes(' ') && (counts.get(mention.key) ?? 0) >= minMentions,
    );
    return own.filter(
      (mention) =>
        !longer.some((phrase) => phrase !== mention && ` ${phrase.key} `.includes(` ${mention.key} `)),
    );
  });
}

/** The most common of the surface forms seen (the first seen on a tie). */
export function commonest(forms: string[]): string {
  const counts = new Map<string, number>();
  for (const form of forms) counts.set(form, (counts.get(form) ?? 0) + 1);
  let best = forms[0] ?? '';
  for (const [form, count] of counts) if (count > (counts.get(best) ?? 0)) best = form;
  return best;
}
