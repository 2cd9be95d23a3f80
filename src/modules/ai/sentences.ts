import { MONTHS } from './named-days.ts';

/** A transcript segment as the answer engine reads it. */
export type SegmentText = { start: number; end: number; text: string };

/** A sentence of a segment: its exact text and the share of the segment's time it takes. */
export type SentenceSpan = { text: string; start: number; end: number; words: number };

/** Shorter sentences ("Yeah.", "Okay, so.") say nothing on their own: they join a neighbour. */
export const MIN_SENTENCE_WORDS = 4;

/** A sentence ends at `.`, `?` or `!` followed by white space. */
const SENTENCE_END = /[.?!]\s+/g;

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;
const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * Cuts a segment into sentences of at least four words (a short one joins the next, or the one
 * before at the end of the turn; a turn shorter than that has none). Each sentence is a slice of the segment's text, so that it can
 * be quoted verbatim, and gets the part of the segment's time its words take (as chunks do for
 * long turns: speech is taken to run at an even pace through a turn).
 */
export function splitSentences(segment: SegmentText): SentenceSpan[] {
  const bounds: Array<[number, number]> = [];
  let from = 0;
  for (const match of segment.text.matchAll(SENTENCE_END)) {
    bounds.push([from, match.index + 1]);
    from = match.index + match[0].length;
  }
  bounds.push([from, segment.text.length]);

  const merged: Array<[number, number]> = [];
  let pending: number | null = null;
  for (const [start, end] of bounds) {
    const begin: number = pending ?? start;
    if (wordsIn(segment.text.slice(begin, end)) < MIN_SENTENCE_WORDS) {
      pending = begin;
      continue;
    }
    merged.push([begin, end]);
    pending = null;
  }
  const last = merged.at(-1);
  if (pending !== null) {
    if (last) last[1] = segment.text.length;
    else merged.push([pending, segment.text.length]);
  }

  const totalWords = wordsIn(segment.text);
  // A turn too short for a sentence ("Okay.", "So") answers nothing on its own.
  if (totalWords < MIN_SENTENCE_WORDS) return [];
  const duration = segment.end - segment.start;
  let before = 0;
  const sentences: SentenceSpan[] = [];
  for (const [start, end] of merged) {
    const text = segment.text.slice(start, end).trim();
    const words = wordsIn(text);
    if (words === 0) continue;
    const at = segment.start + (duration * before) / totalWords;
    before += words;
    const until = segment.start + (duration * before) / totalWords;
    // Rounding must not move a sentence outside its segment.
    sentences.push({
      text,
      words,
      start: Math.max(segment.start, round(at)),
      end: Math.min(segment.end, round(until)),
    });
  }
  return sentences;
}

/**
 * Sounds that hold the floor, not words ("uh", "um", "mm-hmm"), with the comma or stop around them;
 * in capitals they are a name ("HMM", a hidden Markov model).
 */
const HESITATIONS = /,?\s+(?:uh|um|uhm|erm|er|ah|m{2,}|hm+|mhm|mm-hmm|uh-huh)(?:,|(?=[\s.?!;:]|$))/gi;
/** "you know," and "I mean," holding the floor mid-sentence (never "do you know the price"). */
const FILLERS = /(?:^|,?\s)(?:you know|i mean)\s*,(?=\s)/gi;
/** A greeting that opens a meeting or a turn ("Morning everyone.", "Hi all,"): it says nothing of the matter. */
const GREETING =
  /^(?:(?:good )?(?:morning|afternoon|evening)|hi|hello|hey)(?:,? (?:everyone|everybody|all|folks|team|there))?[.!,]\s+(?=\S)/i;
/** Thanks, as said: "Thank you, Chair", "Thanks for making time, Sam", "Thanks very much, everyone". */
const THANKS = String.raw`(?:thanks|thank you)(?: (?:very|so) much)?(?: for (?:making|taking) (?:the )?time| for (?:coming|joining|your time|having (?:me|us)|being here))?(?:,? (?:everyone|everybody|all|folks|team|chair|\p{Lu}\p{Ll}+))?`;
/** An acknowledgement: "Good question", "Fair point", "Exactly". */
const ACKNOWLEDGING =
  '(?:good|great|fair|interesting) (?:question|point)|fair(?: enough)?|good|great|perfect|exactly|please do';
/** An acknowledgement joined to what it acknowledges: "Good question and I do not know yet." */
const JOINED_ACKNOWLEDGING = '(?:good|great|fair|interesting) (?:question|point),? and';
/**
 * An acknowledgement that opens a sentence ("Good question.", "Fair.", "Exactly.", "Please do.",
 * "Thank you, Chair.", "Thanks for making time, Sam.", "Good question and…") and thanks that
 * close one ("… in my reply. Thanks, Sam."): they say nothing of the matter. Short sentences join their neighbour (splitSentences),
 * so these are cut from the sentence that holds them (tidySpeech), and a sentence that is nothing
 * else is never quoted (isCourtesy).
 */
const ACKNOWLEDGEMENT = new RegExp(
  `^(?:(?:${ACKNOWLEDGING}|${THANKS})[.!]|${JOINED_ACKNOWLEDGING})\\s+(?=\\S)`,
  'iu',
);
const CLOSING_THANKS = new RegExp(`(?<=[.?!])\\s+${THANKS}[.!]?$`, 'iu');
/** Thanks, goodbyes and acknowledgements alone: "Thank you, Chair.", "Thanks everyone, see you next week.", "Good point." */
const COURTESY = new RegExp(
  `^(?:(?:${ACKNOWLEDGING}|okay|ok)[,.!]\\s+)?${THANKS}(?:[,.!]\\s*(?:see you[^.?!]*|bye))?[.!]?$|^(?:${ACKNOWLEDGING})[.!]?$`,
  'iu',
);
/** Whether a sentence, as written (tidySpeech), is a courtesy and nothing else. */
export const isCourtesy = (said: string) => COURTESY.test(said);
/** Assent and openers that start a turn rather than say anything ("Yeah, …", "Okay. …"). */
export const OPENER_WORDS = 'yeah|yes|yep|okay|ok|oh|well|right|alright|mm|hmm';
const OPENERS = new RegExp(`^(?:(?:${OPENER_WORDS})[,.!]?\\s+)+`, 'i');
/** What follows an assent when the assent is the answer: "Yes, by January 19." says yes to a day. */
const ANSWERED_BY = new RegExp(
  `^(?:by|before|until|tomorrow|today|tonight|(?:on|next|this|in) (?:the \\d|\\d|week|month|(?:mon|tues|wednes|thurs|fri|satur|sun)day|${MONTHS.join('|')}|two|three|a (?:week|month)))\\b`,
  'i',
);
/** Words that say yes. */
export const ASSENT_WORDS = 'yes|yeah|yep|sure|okay|ok';
const ASSENTS = new RegExp(`\\b(?:${ASSENT_WORDS})\\b`, 'gi');

/** Whether a sentence asks: it ends with a question mark (and maybe a closing quote or bracket). */
export const asks = (text: string) => /\?["')]?\s*$/.test(text);

/**
 * What follows an opener that qualifies it in the same breath: "Agreed, but keep it short." agrees,
 * with a condition ("Sure. But…" is two sentences: the first says nothing).
 */
export const QUALIFIERS = 'but|though|although|except|as long as|provided|only if';
const QUALIFIED_BY = new RegExp(`^(?:${QUALIFIERS})\\b`);
/** Openers that say where the speaker stands, kept before a qualification. */
export const STANCE_WORDS = `${ASSENT_WORDS}|agreed|fine|good|right|fair|true|no`;
const STANCES = new RegExp(`\\b(?:${STANCE_WORDS})\\b`, 'gi');

/**
 * `text` without the openers `openers` finds, but for an assent the rest answers with: "Yes, by
 * January 19." keeps "Yes," where "by January 19" alone would say nothing of who agreed; and
 * the last word that says where the speaker stands when the rest qualifies it ("Agreed, but keep
 * it short.").
 */
export function withoutOpeners(text: string, openers: RegExp): string {
  const opening = text.match(openers)?.[0];
  if (!opening) return text;
  const rest = text.slice(opening.length);
  const stance = opening.match(STANCES)?.at(-1);
  if (stance && QUALIFIED_BY.test(rest)) return `${stance}, ${rest}`;
  const assent = opening.match(ASSENTS)?.at(-1);
  return assent && ANSWERED_BY.test(rest)
    ? `${assent}, ${rest.charAt(0).toLowerCase()}${rest.slice(1)}`
    : rest;
}
/** A word or two said again at once ("I I think", "the the", "we we we"): a speaker restarting. */
const RESTARTS = /\b((?:[\w']+\s+)?[\w']+)(?:\s+\1\b)+/gi;
/** A lone letter before the next word ("they were edited s at one place"): a word cut off. */
const CUT_OFF = /(^|\s)(?![ai]\s)[b-z](?=\s+[A-Za-z])/g;

/**
 * Short words that stand on their own before a word they begin ("we were", "the theory", "in
 * increasing numbers", "but buttons"); any other two or three letters before a word they begin are
 * that word cut off and said again ("th the", "wha what", "re really").
 */
const SHORT_WORDS = new Set(
  `an as at be by do go he if in is it me my no of oh ok on or so to up us we hi ex tv cd
  the and for you are was can not but all one our out any how who why now new old see say get got let put
  use way day yes yet too off own its his her him she may did had has two six ten few lot bit big end far
  per set run try ask saw via etc box pen cap car key top low bad add mid due fun job web app map red tap
  hot net sum age air art bag bed buy cut die dry eat eye fit fix gas guy hit ill kid law lay lie log man
  mix odd pay pop raw sat sea sit son tea tie toy war win won aim ear oil pie sky sun van zip ram rom dvd
  lcd led usb pro con`.split(/\s+/),
);
/** A lone lower-case "i" before a word. */
const LOWER_CASE_I = /(^|\s)i(?=\s+[A-Za-z])/g;
/** Two or three letters before a word they begin. */
const CUT_OFF_BEGINNING = /(^|\s)([a-z]{2,3})\s+(?=\2[a-z])/g;
/** A part of a sentence that only holds the floor ("Okay.", "Right?", "Mmm, yeah."). */
const FLOOR_HOLDING_PART =
  /^(?:(?:yeah|yep|okay|ok|'?kay|oh|well|right|alright|so|sorry|and|but|or|anyway|-+)[,.?!]?\s*)+$/i;
/** Words a sentence cannot end on: the speaker broke off ("That is in the.", "Or in."). */
const UNFINISHED = new Set(
  'a an the and but or to of in on at for with from if my our their your'.split(' '),
);
/** A conjunction left at the end of a sentence once a hesitation after it is gone ("…breath noise and."). */
const TRAILING_CONJUNCTION = /,?\s+(?:and|but|or)\.$/i;

/** A part of four words or fewer that ends on a word it cannot end on, or on a word cut off ("In th."). */
function brokenOff(part: string) {
  const words = part.split(/\s+/);
  const last = words.at(-1)?.replace(/\.$/, '') ?? '';
  if (!part.endsWith('.') || words.length > 4) return false;
  return UNFINISHED.has(last.toLowerCase()) || (/^[a-z]{1,3}$/.test(last) && !SHORT_WORDS.has(last));
}

/**
 * Words cut off, and restarts: restarts inside restarts ("that that 's that 's", "th th the")
 * are undone by saying them again until none is left.
 */
function withoutRestarts(text: string) {
  let previous = '';
  const cutOff = text.replace(CUT_OFF, '$1');
  // Where the pronoun is written "I", a lone "i" is a word cut off ("written i Is that…").
  let current = /\p{Lu}/u.test(text) ? cutOff.replace(LOWER_CASE_I, '$1') : cutOff;
  for (let pass = 0; pass < 3 && current !== previous; pass++) {
    previous = current;
    current = current
      .replace(RESTARTS, '$1')
      .replace(CUT_OFF_BEGINNING, (match, before: string, part: string) =>
        SHORT_WORDS.has(part) ? match : before,
      );
  }
  return current;
}

/**
 * A sentence as a person writes what was said: without hesitation sounds, openers and restarted
 * words, with "they 're" written "they're". The words are the speaker's; a citation still quotes
 * the transcript verbatim.
 */
export function tidySpeech(text: string): string {
  const spoken = withoutRestarts(
    ` ${text}`.replace(HESITATIONS, (sound) => (/[a-z]/.test(sound) ? '' : sound)).replace(FILLERS, ' '),
  ).trim();
  const tidied = withoutOpeners(
    spoken.replace(GREETING, '').replace(ACKNOWLEDGEMENT, '').replace(CLOSING_THANKS, ''),
    OPENERS,
  )
    // "Okay, thank you. We've got…": thanks after an opener.
    .replace(ACKNOWLEDGEMENT, '')
    .replace(/\s+(n't|'(?:s|re|ve|ll|d|m)\b)/gi, '$1')
    .replace(/\s+([,.?!;:])/g, '$1')
    // A hesitation said as a sentence of its own leaves its stop behind ("Right? Mmm." → "Right?.").
    .replace(/(?<!\.)([.?!])\.(?!\.)/g, '$1')
    .replace(/^[\s,;:.]+/, '')
    .replace(/\s{2,}/g, ' ');
  const written = withoutEmptyParts(tidied);
  return written.charAt(0).toUpperCase() + written.slice(1);
}

/**
 * A sentence without its parts that say nothing: those that only hold the floor ("…the design
 * front here. Okay."; splitSentences joins a short sentence to its neighbour), one broken off at
 * the end ("…in the detailed design. That is in the.") and a conjunction left last. A sentence
 * of nothing else stays as it is: whether to quote it is the caller's choice.
 */
function withoutEmptyParts(sentence: string) {
  const parts = sentence.split(/(?<=[.?!])\s+/);
  const saying = parts.filter(
    (part, index) =>
      !FLOOR_HOLDING_PART.test(part) && !(index > 0 && index === parts.length - 1 && brokenOff(part)),
  );
  return saying.length > 0 ? saying.join(' ').replace(TRAILING_CONJUNCTION, '.') : sentence;
}

/** A part of a turn cut at a comma ends as a sentence does: the next one starts with a capital. */
export const ended = (said: string) =>
  /[.?!]["')]?$/.test(said) ? said : `${said.replace(/[\s,;:-]+$/, '')}.`;
