import { type SQL, sql } from 'drizzle-orm';

/**
 * How a question's words are stemmed to meet the index's. PostgreSQL's English stemmer keeps a
 * plural's "s" when the word has no vowel but one right before it, as many acronyms do ("PDAs" →
 * pdas, "KPIs" → kpis, "PRs" → prs). The index adds to a text's English words the singular of each
 * such plural written in capitals (`kh_english_vector`, migration 0024), and a question's words are
 * stemmed with its capitals' plurals made singular (`kh_question_text`): "PDAs" asks for pda, which
 * every text saying "PDA" or "PDAs" holds, as one word. Only where the stemmer keeps the "s" and the
 * singular is a word ("APIs" is api already; "ORs" stays, "OR" being a stop word). A phrase is
 * stemmed as typed: its words' positions are those of the text as written.
 */

/** The question's words, stemmed (stop words dropped). */
const questionVector = (text: SQL | string) => sql`to_tsvector('english', kh_question_text(${text}))`;

/** The question's stemmed words, as an array of lexemes. */
export const questionLexemes = (text: SQL | string) => sql`tsvector_to_array(${questionVector(text)})`;

/** The question's words as a tsquery that needs all of them. */
export const questionQuery = (text: SQL | string) =>
  sql`plainto_tsquery('english', kh_question_text(${text}))`;

/** A stored text's words stemmed as the index stems them: an acronym's plural also as its singular. */
export const storedVector = (text: SQL) => sql`kh_english_vector(${text})`;

/** A stored text's stemmed words, as an array of lexemes. */
export const storedLexemes = (text: SQL) => sql`tsvector_to_array(${storedVector(text)})`;

/** A word written in capitals, or their plural ("PDA", "PDAs"): its singular and its plural as written. */
const ACRONYM = /^([A-Z][A-Z0-9]*[A-Z])s?$/;

/**
 * The plural as written of a word typed in capitals ("PDA" or "PDAs" → "PDAs"), which a snippet
 * marks only when its query holds that word as the text's own stemming gives it; null for other words.
 */
export function acronymPlural(word: string): string | null {
  const singular = ACRONYM.exec(word)?.[1];
  return singular ? `${singular}s` : null;
}
