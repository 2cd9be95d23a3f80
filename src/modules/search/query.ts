import { type SQL, sql } from 'drizzle-orm';
import { acronymPlural, questionQuery } from './stemming.ts';

/**
 * One thing to look for: a word (the last one may be a prefix) or a phrase. A phrase and a word
 * written `+word` are required; a plain word is not (best-match: it ranks what holds it higher).
 */
export type Term = { kind: 'word' | 'phrase'; text: string; prefix: boolean; required: boolean };

/**
 * Clauses are alternatives joined by `OR` (one term each without it); excluded terms must not
 * match. A clause all of whose terms are required must match; the others only rank.
 */
export type ParsedQuery = { clauses: Term[][]; excluded: Term[] };

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;

/**
 * Reads the search syntax: words (any may match; the more of the rarer ones a result holds, the
 * higher it ranks), `+word` and `"a phrase"` (must match), `-word` or `-"a phrase"` to exclude,
 * `OR` (upper case) between alternatives. The last word also matches as a prefix, so that
 * results follow what someone is still typing. Anything else is taken literally: there is no
 * syntax error a person can make.
 */
export function parseQuery(input: string): ParsedQuery {
  const clauses: Term[][] = [];
  const excluded: Term[] = [];
  let joinNext = false;
  let lastWord: Term | null = null;
  for (const match of input.matchAll(TOKEN)) {
    const [, quotedMinus, phrase, bare] = match;
    if (bare === 'OR') {
      joinNext = clauses.length > 0;
      continue;
    }
    let term: Term;
    let negated: boolean;
    if (phrase !== undefined) {
      if (!/[\p{L}\p{N}]/u.test(phrase)) continue;
      term = { kind: 'phrase', text: phrase.trim(), prefix: false, required: true };
      negated = quotedMinus === '-';
    } else {
      const marked = /^[-+]./u.test(bare as string) ? (bare as string)[0] : '';
      negated = marked === '-';
      const text = marked ? (bare as string).slice(1) : (bare as string);
      if (!/[\p{L}\p{N}]/u.test(text)) continue;
      term = { kind: 'word', text, prefix: false, required: marked === '+' };
    }
    if (negated) {
      excluded.push(term);
      joinNext = false;
      lastWord = null;
      continue;
    }
    if (joinNext) clauses.at(-1)?.push(term);
    else clauses.push([term]);
    joinNext = false;
    lastWord = term.kind === 'word' ? term : null;
  }
  // Only a word that ends the query is still being typed.
  if (lastWord && /[\p{L}\p{N}]$/u.test(input)) lastWord.prefix = true;
  return { clauses, excluded };
}

/** The letters and digits a prefix is made of: its last run ("e-mai" → "mai"), lower case. */
export const prefixLexeme = (word: string) => (word.match(/[\p{L}\p{N}]+/gu)?.at(-1) ?? '').toLowerCase();

/**
 * A term as a tsquery over the index's vectors, which hold every text stemmed (english) and as
 * written (simple). Words and phrases match stemmed ("running" finds "run"); a prefix matches the
 * words as written ("organi" finds "organization"), except for stop words, which would match
 * almost everything.
 */
function termQuery(term: Term): SQL {
  if (term.kind === 'phrase') return sql`phraseto_tsquery('english', ${term.text})`;
  const stemmed = questionQuery(term.text);
  const lexeme = prefixLexeme(term.text);
  if (!term.prefix || lexeme.length < 2) return stemmed;
  return sql`(case when numnode(${stemmed}) = 0 then ${stemmed}
    else ${stemmed} || to_tsquery('simple', quote_literal(${lexeme}) || ':*') end)`;
}

const isRequired = (clause: Term[]) => clause.every((term) => term.required);

/**
 * What a result must match, as one tsquery expression: any of the optional terms, every required
 * clause, none of the excluded terms (empty when the query holds only stop words).
 */
export function toTsquery(parsed: ParsedQuery): SQL {
  const optional = parsed.clauses.filter((clause) => !isRequired(clause)).flat();
  const required = parsed.clauses.filter(isRequired);
  const parts = [
    ...(optional.length > 0 ? [sql`(${sql.join(optional.map(termQuery), sql` || `)})`] : []),
    ...required.map((clause) => sql`(${sql.join(clause.map(termQuery), sql` || `)})`),
  ];
  const excluded = parsed.excluded.map((term) => sql`!!${termQuery(term)}`);
  const all = [...parts, ...excluded];
  if (all.length === 0) return sql`''::tsquery`;
  return sql.join(all, sql` && `);
}

/**
 * What a snippet marks: what the query matches and, for a word typed in capitals, its plural as
 * written ("KPIs" for `KPI`): a snippet stems the text as it stands, where a plural the stemmer
 * keeps apart from its singular is that plural (stemming.ts).
 */
export function snippetQuery(parsed: ParsedQuery): SQL {
  const plurals = parsed.clauses.flat().flatMap((term) => {
    const plural = term.kind === 'word' ? acronymPlural(term.text) : null;
    return plural ? [sql`plainto_tsquery('english', ${plural})`] : [];
  });
  const matched = toTsquery(parsed);
  return plurals.length === 0 ? matched : sql`(${matched}) || ${sql.join(plurals, sql` || `)}`;
}

/** Whether the query requires or excludes anything: otherwise any of its words is a match. */
export const constrains = (parsed: ParsedQuery) =>
  parsed.excluded.length > 0 || parsed.clauses.some(isRequired);

/**
 * Every term asked for, each as its own tsquery: what results are ranked by, each weighed by its
 * rarity. `framing`: a plain word that may say how a question is asked ("what did they discuss")
 * rather than what it is about, which ranking weighs lightly when it is one (see FRAMING_WORDS).
 */
export function rankingTerms(parsed: ParsedQuery): Array<{ query: SQL; text: string; framing: boolean }> {
  return parsed.clauses.flat().map((term) => ({
    query: termQuery(term),
    text: term.text,
    framing: term.kind === 'word' && !term.required && !term.prefix,
  }));
}
