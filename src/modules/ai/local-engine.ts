import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  type AnswerEngine,
  type Citation,
  type EngineAnswer,
  NOT_FOUND_ANSWER,
  type Source,
} from './engine.ts';
import { splitSentences } from './sentences.ts';

/** At most this many sentences make an answer: enough to quote both sides of a point, short enough to read. */
const MAX_SENTENCES = 4;
/** MMR's balance of relevance against repeating what is already selected. */
const LAMBDA = 0.7;
/** Answered when one sentence holds this share of the question's weight… */
const SINGLE_COVERAGE = 0.5;
/** …or the selected sentences together hold this share. */
const COMBINED_COVERAGE = 0.6;
/** A sentence adding no new question word still joins the answer at this share of the best one's relevance. */
const CONTEXT_RELEVANCE = 0.6;
/** Sentences longer than this are discounted a little: a rambling turn holds many words by chance. */
const LONG_SENTENCE_WORDS = 40;

type Sentence = {
  source: Source;
  order: number;
  speaker: string | null;
  start: number;
  end: number;
  text: string;
  words: number;
  lexemes: Set<string>;
  /** Its speaker's name, stemmed: "what did Kirsty Williams think" asks for her words. */
  speakerLexemes: Set<string>;
};

type SegmentRow = {
  number: number;
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
};

/** The segments every source covers, in one query, in source then transcript order. */
async function loadSegments(db: Db, sources: Source[]): Promise<SegmentRow[]> {
  const { rows } = await db.execute<SegmentRow>(sql`
    select s.number, t.index, t.start_seconds as start, t.end_seconds as end,
      coalesce(sp.name, t.speaker_label) as speaker, t.text
    from unnest(${sql.param(sources.map((source) => source.number))}::int[],
        ${sql.param(sources.map((source) => source.videoId))}::uuid[],
        ${sql.param(sources.map((source) => source.firstSegmentIndex))}::int[],
        ${sql.param(sources.map((source) => source.lastSegmentIndex))}::int[])
      as s(number, video_id, first_index, last_index)
    join transcript_segments t
      on t.video_id = s.video_id and t.index between s.first_index and s.last_index
    left join speakers sp on sp.id = t.speaker_id
    order by s.number, t.index`);
  return rows;
}

/**
 * Words that say how a question is asked about a meeting ("what did they discuss", "summarize",
 * "what did X think") rather than what it is about: no sentence that answers holds them, so they
 * would only make every question look unanswered.
 */
const FRAMING_WORDS =
  'summarize summary discuss discussion talk talking think thought say said mention opinion elaborate agree disagree group meeting';

/**
 * The question's and every sentence's stemmed words (english: stop words dropped, "decided" →
 * decid), in one query: PostgreSQL's text search is the language knowledge the engine has. The
 * question's framing words are dropped unless nothing else is left.
 */
async function stem(
  db: Db,
  question: string,
  texts: string[],
): Promise<{ question: string[]; texts: string[][] }> {
  const { rows } = await db.execute<{ ord: number; lexemes: string[] }>(sql`
    with asked as (select tsvector_to_array(to_tsvector('english', ${question})) as lexemes),
    content as (
      select array(
        select unnest(lexemes) from asked
        except select unnest(tsvector_to_array(to_tsvector('english', ${FRAMING_WORDS})))
        order by 1) as lexemes
    )
    select 0::int8 as ord,
      case when cardinality(content.lexemes) > 0 then content.lexemes else asked.lexemes end as lexemes
    from asked, content
    union all
    select ord, tsvector_to_array(to_tsvector('english', s))
    from unnest(${sql.param(texts)}::text[]) with ordinality as t(s, ord)
    order by ord`);
  return {
    question: rows[0]?.lexemes ?? [],
    texts: rows.slice(1).map((row) => row.lexemes),
  };
}

/** The sentences of the sources, each once even when sources overlap (the first source keeps it). */
function sentencesOf(
  sources: Source[],
  segments: SegmentRow[],
): Omit<Sentence, 'lexemes' | 'speakerLexemes'>[] {
  const byNumber = new Map(sources.map((source) => [source.number, source]));
  const seen = new Set<string>();
  const sentences: Omit<Sentence, 'lexemes' | 'speakerLexemes'>[] = [];
  for (const segment of segments) {
    const source = byNumber.get(segment.number) as Source;
    for (const sentence of splitSentences(segment)) {
      const key = `${source.videoId}:${segment.index}:${sentence.start}:${sentence.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      sentences.push({ ...sentence, source, order: sentences.length, speaker: segment.speaker });
    }
  }
  return sentences;
}

const jaccard = (a: Set<string>, b: Set<string>) => {
  let shared = 0;
  for (const lexeme of a) if (b.has(lexeme)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 0 : shared / union;
};

/**
 * Picks the sentences that answer: relevance is the share of the question's weight a sentence
 * holds (each word weighs its idf over these sentences, so the distinctive words of the question
 * count most); MMR then trades relevance against repeating sentences already picked.
 */
function select(sentences: Sentence[], questionLexemes: string[]) {
  const idf = new Map<string, number>();
  for (const lexeme of questionLexemes) {
    const holding = sentences.filter(
      (sentence) => sentence.lexemes.has(lexeme) || sentence.speakerLexemes.has(lexeme),
    ).length;
    idf.set(lexeme, Math.log(1 + sentences.length / (1 + holding)));
  }
  const total = [...idf.values()].reduce((sum, weight) => sum + weight, 0);
  const coverageOf = (lexemes: Iterable<string>) => {
    let held = 0;
    for (const lexeme of lexemes) held += idf.get(lexeme) ?? 0;
    return total === 0 ? 0 : held / total;
  };
  const candidates = sentences
    .map((sentence) => {
      // Who spoke counts only with what they said: otherwise any "Okay, so" of theirs would match.
      const said = questionLexemes.filter((lexeme) => sentence.lexemes.has(lexeme));
      const matched = questionLexemes.filter(
        (lexeme) => sentence.lexemes.has(lexeme) || sentence.speakerLexemes.has(lexeme),
      );
      const coverage = said.length > 0 ? coverageOf(matched) : 0;
      const penalty = Math.min(1, (LONG_SENTENCE_WORDS / sentence.words) ** 0.25);
      return { sentence, matched, coverage, relevance: coverage * penalty };
    })
    .filter((candidate) => candidate.coverage > 0);

  const selected: typeof candidates = [];
  const covered = new Set<string>();
  while (selected.length < MAX_SENTENCES) {
    let best: (typeof candidates)[number] | undefined;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const candidate of candidates) {
      if (selected.includes(candidate)) continue;
      const redundancy = Math.max(
        0,
        ...selected.map((chosen) => jaccard(candidate.sentence.lexemes, chosen.sentence.lexemes)),
      );
      const score = LAMBDA * candidate.relevance - (1 - LAMBDA) * redundancy;
      // Ties go to the earlier sentence, so that the same input always gives the same answer.
      if (score > bestScore) {
        best = candidate;
        bestScore = score;
      }
    }
    if (!best) break;
    // A sentence that holds no word of the question not already quoted adds only context: it is
    // kept while it is about as relevant as the best one (an answer is usually said over a few
    // sentences), not when it merely brushes the subject.
    const addsNothing = best.matched.every((lexeme) => covered.has(lexeme));
    const first = selected[0];
    if (first && addsNothing && best.relevance < CONTEXT_RELEVANCE * first.relevance) break;
    selected.push(best);
    for (const lexeme of best.matched) covered.add(lexeme);
  }
  return {
    selected: selected.map((candidate) => candidate.sentence),
    bestCoverage: Math.max(0, ...selected.map((candidate) => candidate.coverage)),
    coverage: coverageOf(covered),
  };
}

const notFound = (coverage: number): EngineAnswer => ({
  answer: NOT_FOUND_ANSWER,
  answered: false,
  confidence: Math.round(coverage * 1000) / 1000,
  citations: [],
});

/**
 * The offline engine: answers with the transcript's own sentences, each cited, when they hold
 * enough of the question; otherwise says it does not know rather than quote something loosely related.
 */
export function createLocalEngine(db: Db): AnswerEngine {
  return {
    name: 'local',
    async answer({ question, sources }) {
      if (sources.length === 0) return notFound(0);
      const spans = sentencesOf(sources, await loadSegments(db, sources));
      if (spans.length === 0) return notFound(0);
      const speakers = [...new Set(spans.flatMap((span) => (span.speaker ? [span.speaker] : [])))];
      const stemmed = await stem(db, question, [...spans.map((span) => span.text), ...speakers]);
      if (stemmed.question.length === 0) return notFound(0);
      const speakerLexemes = new Map(
        speakers.map((speaker, at) => [speaker, new Set(stemmed.texts[spans.length + at])]),
      );
      const sentences = spans.map((span, at) => ({
        ...span,
        lexemes: new Set(stemmed.texts[at]),
        speakerLexemes: (span.speaker && speakerLexemes.get(span.speaker)) || new Set<string>(),
      }));
      const { selected, bestCoverage, coverage } = select(sentences, stemmed.question);
      if (bestCoverage < SINGLE_COVERAGE && coverage < COMBINED_COVERAGE) return notFound(coverage);

      // Read in the order things were said: the best-ranked video first, then by time.
      const videoRank = new Map<string, number>();
      for (const source of sources) {
        videoRank.set(
          source.videoId,
          Math.min(source.number, videoRank.get(source.videoId) ?? source.number),
        );
      }
      const ordered = [...selected].sort(
        (a, b) =>
          (videoRank.get(a.source.videoId) as number) - (videoRank.get(b.source.videoId) as number) ||
          a.start - b.start ||
          a.order - b.order,
      );
      const citations: Citation[] = ordered.map((sentence) => ({
        source: sentence.source.number,
        videoId: sentence.source.videoId,
        videoTitle: sentence.source.videoTitle,
        start: sentence.start,
        end: sentence.end,
        speaker: sentence.speaker,
        quote: sentence.text,
      }));
      return {
        answer: ordered.map((sentence) => `${sentence.text} [${sentence.source.number}]`).join(' '),
        answered: true,
        confidence: Math.round(coverage * 1000) / 1000,
        citations,
      };
    },
  };
}
