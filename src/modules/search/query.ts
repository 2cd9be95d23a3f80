import { type SQL, sql } from 'drizzle-orm';

/** One thing to look for: a word (the last one may be a prefix) or a phrase. */
export type Term = { kind: 'word' | 'phrase'; text: string; prefix: boolean };

/** Clauses all match (AND); a clause matches when any of its terms does (OR); excluded terms must not. */
export type ParsedQuery = { clauses: Term[][]; excluded: Term[] };

const TOKEN = /(-?)"([^"]*)"?|(\S+)/g;

/**
 * Reads the search syntax: words (all must match), `"a phrase"`, `-word` or `-"a phrase"` to
 * exclude, `OR` (upper case) between alternatives. The last word also matches as a prefix, so
 * that results follow what someone is still typing. Anything else is taken literally: there is
 * no syntax error a person can make.
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
      term = { kind: 'phrase', text: phrase.trim(), prefix: false };
      negated = quotedMinus === '-';
    } else {
      negated = (bare as string).startsWith('-') && (bare as string).length > 1;
      const text = negated ? (bare as string).slice(1) : (bare as string);
      if (!/[\p{L}\p{N}]/u.test(text)) continue;
      term = { kind: 'word', text, prefix: false };
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
const prefixLexeme = (word: string) => (word.match(/[\p{L}\p{N}]+/gu)?.at(-1) ?? '').toLowerCase();

/**
 * A term as a tsquery over the index's vectors, which hold every text stemmed (english) and as
 * written (simple). Words and phrases match stemmed ("running" finds "run"); a prefix matches the
 * words as written ("organi" finds "organization"), except for stop words, which would match
 * almost everything.
 */
function termQuery(term: Term): SQL {
  if (term.kind === 'phrase') return sql`phraseto_tsquery('english', ${term.text})`;
  const stemmed = sql`plainto_tsquery('english', ${term.text})`;
  const lexeme = prefixLexeme(term.text);
  if (!term.prefix || lexeme.length < 2) return stemmed;
  return sql`(case when numnode(${stemmed}) = 0 then ${stemmed}
    else ${stemmed} || to_tsquery('simple', quote_literal(${lexeme}) || ':*') end)`;
}

/** The whole query as one tsquery expression (empty when it holds only stop words). */
export function toTsquery(parsed: ParsedQuery): SQL {
  const parts = parsed.clauses.map((clause) => sql`(${sql.join(clause.map(termQuery), sql` || `)})`);
  const excluded = parsed.excluded.map((term) => sql`!!${termQuery(term)}`);
  const all = [...parts, ...excluded];
  if (all.length === 0) return sql`''::tsquery`;
  return sql.join(all, sql` && `);
}

/**
 * For retrieval: any of the question's words, so that passages are ranked by how much of the
 * question they hold rather than required to hold all of it.
 */
export function toAnyWordTsquery(text: string): SQL {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  if (words.length === 0) return sql`''::tsquery`;
  return sql`(${sql.join(
    words.map((word) => sql`plainto_tsquery('english', ${word})`),
    sql` || `,
  )})`;
}
