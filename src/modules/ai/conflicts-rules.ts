import { subjectOf } from '../knowledge/nlp/text.ts';
import { MONTHS } from './named-days.ts';
import { subjectWords } from './word-sets.ts';

/**
 * When two statements of an organization's meetings disagree. Pure functions over the stored
 * `subject` (stemmed content words, sorted, space-separated) and the raw words said: the subject
 * tells whether two statements are about the same thing, the raw words what each says about it.
 */

export type Statement = {
  id: string;
  videoId: string;
  date: Date;
  text: string;
  subject: string;
};

export type ConflictSignal = 'negation' | 'option' | 'date' | 'number' | 'revision';

export type Verdict = {
  kind: 'contradiction' | 'superseded';
  signal: ConflictSignal;
  confidence: number;
  /** The stems the two subjects share, in the order the later statement says them. */
  shared: string[];
};

/** Two subjects are the same subject with at least this many shared words… */
export const MIN_SHARED_WORDS = 2;
/** …and at least this Jaccard similarity (values that differ left out, see `subjectOverlap`). */
export const MIN_JACCARD = 0.4;

/** Value classes: two statements disagree when both name a value of a class and none in common. */
type ValueClass = 'option' | 'month' | 'weekday' | 'quarter' | 'isoDate' | 'amount' | 'percent' | 'number';

const SIGNAL_OF: Record<ValueClass, ConflictSignal> = {
  option: 'option',
  month: 'date',
  weekday: 'date',
  quarter: 'date',
  isoDate: 'date',
  amount: 'number',
  percent: 'number',
  number: 'number',
};

/** How telling each signal is on its own: a new option named is a clearer change than a new number. */
const STRENGTH: Record<ConflictSignal, number> = {
  revision: 0.5,
  option: 0.4,
  negation: 0.35,
  date: 0.35,
  number: 0.3,
};

/**
 * A statement that says it takes back or replaces an earlier decision: "Then the decision changes.
 * Search v2 moves to February 13", "The earlier decision to keep the checklist is on hold".
 */
const REVISES =
  /\b(?:decision (?:changes|has changed|is reversed)|this replaces|(?:earlier|previous|original|first) decision\b[^.;?!]*\b(?:on hold|reversed|replaced|overturned|cancell?ed|suspended|withdrawn))\b/i;

/** A revision that says which decision it revises: "the earlier decision to keep the checklist…". */
const NAMES_REVISED = /\bdecision (?:to|on|about|for|that)\b/i;

/** Stems of negating words that stemming keeps as content: they say how, not what, a statement is about. */
const NEGATION_STEMS = new Set(['cancel', 'drop', 'scrap', 'abandon', 'longer', 'never']);

/** Phrases with a negating word that negate nothing. */
const NOT_NEGATIONS =
  /\bno (?:later|earlier|more|less|fewer|sooner) than\b|\bnot only\b|\bno,|\bno doubt\b/gi;
const NEGATIONS =
  /\b(?:not|never|no|cannot|cancel(?:s|led|ed|ling|ing|lation)?|drop(?:s|ped|ping)?|scrap(?:s|ped|ping)?|abandon(?:s|ed|ing)?)\b|n['’]t\b/gi;

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const NUMBER_WORDS: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  fifty: 50,
};
const MULTIPLIERS: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  million: 1e6,
  bn: 1e9,
  billion: 1e9,
};

const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
const AMOUNT =
  /(?:[$€£]\s?(\d[\d,]*(?:\.\d+)?)\s?(k|m|bn|thousand|million|billion)?\b|\b(\d[\d,]*(?:\.\d+)?)\s?(k|thousand|million|billion)?\s?(?:dollars|euros|pounds|usd|eur|gbp)\b)/gi;
const PERCENT = /\b(\d+(?:\.\d+)?)\s?(?:%|percent\b|per cent\b)/gi;
const NUMBER = /\b\d+(?:[.,]\d+)*\b/g;
const QUARTER = /\bq([1-4])\b/gi;
/** "May" is a month only where a date is meant: "in May", "May 15", "the 15th of May". */
const MAY =
  /\b(?:in|by|on|until|till|before|after|from|since|of|early|mid|late|end of|next|this)\s+may\b|\bmay\s+\d/i;
/** A choice between options: "we'll go with Postgres", "switch to MySQL". */
const CHOICE =
  /\b(?:go(?:ing)? with|went with|stick(?:ing)? with|use|using|choose|chose|chosen|pick|picked|opt(?:ed)? for|settle(?:d)? on|switch(?:ed|ing)? to|move to|moving to|migrate to|adopt(?:ed)?)\s+(?:the\s+|a\s+|an\s+|our\s+)?([\w.+#-]+)(?:\s+([\w.+#-]+))?/gi;
/** Words that end a named option: "go with Postgres for billing" chose "postgres". */
const OPTION_STOPS = new Set(
  'for in on at by to from as because since and or but instead this that it them which when until with of over than rather next up between'.split(
    ' ',
  ),
);
const NOT_OPTIONS = new Set(['it', 'this', 'that', 'them', 'these', 'those', 'what', 'which', 'one', 'some']);

type Analysis = { negated: boolean; values: Map<ValueClass, Set<string>>; valueWords: Set<string> };
/** A statement with what the rules read from it, read once however many pairs it is in. */
type Analysed = { statement: Statement; said: string; subject: Set<string>; analysis: Analysis };

const lower = (text: string) => text.toLowerCase().replace(/[’]/g, "'");
const wordsOf = (text: string) => lower(text).match(/[a-z0-9]+/g) ?? [];

const toNumber = (digits: string, unit: string | undefined) =>
  Number(digits.replace(/,/g, '')) * (unit ? (MULTIPLIERS[unit.toLowerCase()] ?? 1) : 1);

/** Whether the statement negates what it says: an odd number of negating words ("we won't drop it" affirms). */
export function isNegated(text: string): boolean {
  const cleaned = lower(text).replace(NOT_NEGATIONS, ' ');
  return (cleaned.match(NEGATIONS)?.length ?? 0) % 2 === 1;
}

/** The values a statement names, by class: options chosen, dates, amounts, percentages, numbers. */
export function valuesOf(text: string): Map<ValueClass, Set<string>> {
  const values = new Map<ValueClass, Set<string>>();
  const add = (kind: ValueClass, value: string) => {
    const set = values.get(kind) ?? new Set<string>();
    set.add(value);
    values.set(kind, set);
  };
  let rest = lower(text);
  // Dates, amounts and percentages first, so their digits are not also read as plain numbers.
  rest = rest.replace(ISO_DATE, (date) => {
    add('isoDate', date);
    return ' ';
  });
  rest = rest.replace(AMOUNT, (_match, digits, unit, spelled, spelledUnit) => {
    add('amount', String(toNumber(digits ?? spelled, unit ?? spelledUnit)));
    return ' ';
  });
  rest = rest.replace(PERCENT, (_match, digits) => {
    add('percent', String(Number(digits)));
    return ' ';
  });
  for (const [, quarter] of rest.matchAll(QUARTER)) add('quarter', `q${quarter}`);
  for (const [match] of rest.matchAll(NUMBER)) add('number', String(toNumber(match, undefined)));
  const words = wordsOf(rest);
  for (const word of words) {
    if (word in NUMBER_WORDS) add('number', String(NUMBER_WORDS[word]));
    if (MONTHS.includes(word) && (word !== 'may' || MAY.test(rest))) add('month', word);
    const day = word.replace(/s$/, '');
    if (WEEKDAYS.includes(day)) add('weekday', day);
  }
  for (const [, first, second] of rest.matchAll(CHOICE)) {
    if (!first || NOT_OPTIONS.has(first) || OPTION_STOPS.has(first)) continue;
    // Word by word: "managed Postgres" and "Postgres" are one option, "MySQL" another.
    add('option', first);
    if (second && !OPTION_STOPS.has(second)) add('option', second);
  }
  return values;
}

function analyse(statement: Statement): Analysed {
  const values = valuesOf(statement.text);
  const valueWords = new Set([...values.values()].flatMap((set) => [...set].flatMap(wordsOf)));
  return {
    statement,
    said: lower(statement.text).trim(),
    subject: subjectWords(statement.subject),
    analysis: { negated: isNegated(statement.text), values, valueWords },
  };
}

/** Whether a stem is (the start of) a word: "databas" of "database", "compani" of "company". */
export const stemMatches = (stem: string, word: string) =>
  word.startsWith(stem) || (stem.endsWith('i') && word.startsWith(`${stem.slice(0, -1)}y`));

/**
 * How much two subjects overlap. Negating stems ("cancel", "drop") are left out — they say how
 * the statement is meant, not what it is about — and so are the values only one of them names
 * ("postgr" against "mysql"): different values of one subject are what a conflict is made of.
 */
export function subjectOverlap(
  a: Set<string>,
  b: Set<string>,
  differingValueWords: Set<string> = new Set(),
): { shared: string[]; jaccard: number } {
  const isValue = (stem: string) => [...differingValueWords].some((word) => stemMatches(stem, word));
  const kept = (set: Set<string>) => [...set].filter((stem) => !NEGATION_STEMS.has(stem));
  const shared = kept(a).filter((stem) => b.has(stem));
  const union = new Set([...kept(a), ...kept(b)].filter((stem) => shared.includes(stem) || !isValue(stem)));
  return { shared, jaccard: union.size === 0 ? 0 : shared.length / union.size };
}

const disjoint = (a: Set<string>, b: Set<string>) => [...a].every((value) => !b.has(value));

/** The value classes both statements name with no value in common, strongest signal first. */
function conflictingClasses(a: Analysis, b: Analysis): ValueClass[] {
  const classes: ValueClass[] = [];
  for (const [kind, mine] of a.values) {
    const theirs = b.values.get(kind);
    if (theirs && disjoint(mine, theirs)) classes.push(kind);
  }
  return classes.sort((x, y) => STRENGTH[SIGNAL_OF[y]] - STRENGTH[SIGNAL_OF[x]]);
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The stems in the order the text says them; stems it does not say last. */
function inTextOrder(stems: string[], text: string): string[] {
  const words = wordsOf(text);
  const position = (stem: string) => {
    const at = words.findIndex((word) => stemMatches(stem, word));
    return at < 0 ? words.length : at;
  };
  return [...stems].sort((x, y) => position(x) - position(y) || x.localeCompare(y));
}

/**
 * Whether `later` disagrees with `earlier` (pass them in meeting order):
 * - negation: one affirms what the other negates, naming no different value → contradiction;
 * - values: both affirm, and name different options, dates or numbers of one class → superseded
 *   when said in different meetings (the later one stands), contradiction within one meeting.
 * Null when they are not about the same subject or do not disagree.
 */
export const compareStatements = (earlier: Statement, later: Statement): Verdict | null =>
  compareAnalysed(analyse(earlier), analyse(later));

function compareAnalysed(first: Analysed, second: Analysed): Verdict | null {
  if (first.said === second.said) return null;
  const [a, b] = [first.analysis, second.analysis];
  const classes = conflictingClasses(a, b);
  const negation = a.negated !== b.negated;
  // Told before the subjects are compared, as most pairs fail here: a negation disagrees only
  // naming no different value ("we won't launch in March" and "we'll launch in April" agree), and
  // two affirmations only naming different values.
  if (negation ? classes.length > 0 : a.negated || classes.length === 0) return null;
  const differing = new Set(
    [...a.valueWords, ...b.valueWords].filter((word) => !(a.valueWords.has(word) && b.valueWords.has(word))),
  );
  const { shared, jaccard } = subjectOverlap(first.subject, second.subject, differing);
  if (shared.length < MIN_SHARED_WORDS || jaccard < MIN_JACCARD) return null;
  const [earlier, later] = [first.statement, second.statement];
  const verdict = (kind: Verdict['kind'], signal: ConflictSignal, extra: number): Verdict => ({
    kind,
    signal,
    confidence: round2(Math.min(1, 0.6 * jaccard + STRENGTH[signal] + 0.05 * extra)),
    shared: inTextOrder(shared, later.text),
  });
  if (negation) return verdict('contradiction', 'negation', 0);
  const kind = earlier.videoId === later.videoId ? 'contradiction' : 'superseded';
  return verdict(kind, SIGNAL_OF[classes[0] as ValueClass], classes.length - 1);
}

/** The stems as words a reader knows: the word itself, else the first word it starts, else the stem. */
export function readableSubject(stems: string[], texts: string[]): string {
  const words = texts.flatMap(wordsOf);
  return stems
    .map((stem) => (words.includes(stem) ? stem : (words.find((word) => stemMatches(stem, word)) ?? stem)))
    .join(' ');
}

export type Disagreement = { earlier: number; later: number; verdict: Verdict };

/** Pairs that share at least two subject words: the only ones that can be about the same subject. */
function* candidatePairs(statements: Analysed[]): Generator<[number, number]> {
  const saidBy = new Map<string, number[]>();
  for (const [later, { subject }] of statements.entries()) {
    const shared = new Map<number, number>();
    for (const word of subject) {
      for (const earlier of saidBy.get(word) ?? []) shared.set(earlier, (shared.get(earlier) ?? 0) + 1);
      const saying = saidBy.get(word);
      if (saying) saying.push(later);
      else saidBy.set(word, [later]);
    }
    for (const [earlier, count] of shared) if (count >= MIN_SHARED_WORDS) yield [earlier, later];
  }
}

/**
 * The earlier statement a revising one replaces: of another meeting, sharing a subject word, the
 * one whose subject is closest. A revision says in words that it changes a decision, so one
 * shared word ("the checklist") is enough where a plain comparison needs two and a close subject.
 */
function revised(statements: Statement[], later: number): Disagreement | null {
  const revising = statements[later] as Statement;
  const revision = revising.text.match(REVISES)?.[0];
  if (!revision) return null;
  // "The earlier decision to keep the checklist is on hold" names what it revises: the checklist,
  // not whatever else the turn decides ("we run the experiment, starting February 16").
  const named = NAMES_REVISED.test(revision) ? subjectWords(subjectOf(revision)) : new Set<string>();
  const subject = named.size > 0 ? named : subjectWords(revising.subject);
  let best: { earlier: number; shared: string[]; jaccard: number } | null = null;
  for (const [earlier, statement] of statements.slice(0, later).entries()) {
    if (statement.videoId === revising.videoId || statement.date > revising.date) continue;
    const { shared, jaccard } = subjectOverlap(subjectWords(statement.subject), subject);
    if (shared.length > 0 && (!best || jaccard > best.jaccard)) best = { earlier, shared, jaccard };
  }
  if (!best) return null;
  return {
    earlier: best.earlier,
    later,
    verdict: {
      kind: 'superseded',
      signal: 'revision',
      confidence: round2(Math.min(1, 0.6 * best.jaccard + STRENGTH.revision)),
      shared: inTextOrder(best.shared, revising.text),
    },
  };
}

/**
 * Every pair of statements that disagree, statements given oldest first: value and negation
 * conflicts between statements about the same subject, and revisions that say what they replace.
 */
export function findDisagreements(statements: Statement[]): Disagreement[] {
  const found: Disagreement[] = [];
  // Pairs outnumber statements (2,000 statements of QMSum meetings make 16,000): each is read once.
  const analysed = statements.map(analyse);
  for (const [earlier, later] of candidatePairs(analysed)) {
    const verdict = compareAnalysed(analysed[earlier] as Analysed, analysed[later] as Analysed);
    if (verdict) found.push({ earlier, later, verdict });
  }
  for (const later of statements.keys()) {
    const revision = revised(statements, later);
    if (revision && !found.some((pair) => pair.earlier === revision.earlier && pair.later === later)) {
      found.push(revision);
    }
  }
  return found;
}
