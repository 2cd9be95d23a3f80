import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { framingWordsOf } from '../search/question-terms.ts';
import { questionLexemes, storedLexemes } from '../search/stemming.ts';
import type { Source } from './engine.ts';
import type { Sentence } from './excerpts.ts';
import { splitSentences, tidySpeech } from './sentences.ts';

/** What the local engine reads of its sources (local-engine.ts): their sentences, and the words of each as stemmed. */

/**
 * The question's and every sentence's stemmed words (english: stop words dropped, "decided" →
 * decid), in one query: PostgreSQL's text search is the language knowledge the engine has.
 * Framing words ("discuss", "think") are left out of the question unless nothing else is left,
 * and out of the questions it follows (`followed`: the words of `earlier`).
 */
export async function stem(db: Db, question: string, earlier: string, texts: string[]) {
  const { rows } = await db.execute<{ ord: number; lexemes: string[] }>(sql`
    with framing as (select ${questionLexemes(framingWordsOf(question))} as lexemes),
    asked as (select ${questionLexemes(question)} as lexemes),
    content as (
      select array(
        select unnest(lexemes) from asked except select unnest(lexemes) from framing order by 1) as lexemes
    )
    select -1::int8 as ord, array(
        select unnest(${questionLexemes(earlier)})
        except select unnest(lexemes) from framing order by 1) as lexemes
    union all
    select 0::int8,
      case when cardinality(content.lexemes) > 0 then content.lexemes else asked.lexemes end
    from asked, content
    union all
    select ord, ${storedLexemes(sql`s`)}
    from unnest(${sql.param(texts)}::text[]) with ordinality as t(s, ord)`);
  const byOrd = new Map(rows.map((row) => [Number(row.ord), row.lexemes]));
  return {
    question: byOrd.get(0) ?? [],
    followed: byOrd.get(-1) ?? [],
    texts: texts.map((_, at) => byOrd.get(at + 1) ?? []),
  };
}

/**
 * The sentences of every source's turns, in source then transcript order. A turn too short for a
 * sentence is one as a whole ("Okta, with SAML."): it may be the reply to a question quoted.
 */
export function sentencesOf(sources: Source[]): Omit<Sentence, 'lexemes'>[] {
  // A short turn counts with two words or more once hesitations and openers are gone: "-. Yeah." says nothing.
  const spansOf = (turn: Source['turns'][number]) => {
    const split = splitSentences(turn);
    if (split.length > 0 || (tidySpeech(turn.text).match(/\p{L}+/gu) ?? []).length < 2) return split;
    return [{ text: turn.text.trim(), start: turn.start, end: turn.end }];
  };
  return sources.flatMap((source) =>
    source.turns.flatMap((turn) =>
      spansOf(turn).map((sentence) => {
        const said = tidySpeech(sentence.text);
        return {
          ...sentence,
          said,
          words: said.split(/\s+/).filter(Boolean).length,
          source,
          turn: turn.index,
          speaker: turn.speaker,
        };
      }),
    ),
  );
}

/** Each source's sentences, grouped once: the engine's rules ask for them source by source. */
export function sentencesBySource(sentences: Sentence[]): (source: Source) => Sentence[] {
  const grouped = new Map<Source, Sentence[]>();
  for (const sentence of sentences) {
    const own = grouped.get(sentence.source);
    if (own) own.push(sentence);
    else grouped.set(sentence.source, [sentence]);
  }
  return (source) => grouped.get(source) ?? [];
}
