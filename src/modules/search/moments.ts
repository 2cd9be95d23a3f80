import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { prefixLexeme, type Term } from './query.ts';
import { questionLexemes } from './stemming.ts';
import { EVEN_NEIGHBOURS, rankStretches, STRETCH_DEFAULTS, type TermTurn } from './stretches.ts';
import { loadTurns, mergedRanges } from './transcript-turns.ts';

/** Moments a video result shows, at most. */
const MOMENTS_PER_VIDEO = 3;
/** `ts_headline`'s options for every snippet: matches marked, about 12–30 words. */
export const HEADLINE_OPTIONS = 'StartSel=<mark>, StopSel=</mark>, MaxWords=30, MinWords=12, ShortWord=2';

export type Moment = { start: number; end: number; speaker: string | null; snippet: string };

/**
 * Words of a turn `ts_headline` is given, at most: it parses what it is given whole, and a
 * committee member's turn runs to 800 words (a page of moments headlined 11,000 words, 15 ms).
 */
const SNIPPET_SOURCE_WORDS = 80;
/** Words kept before the first word said of the question. */
const SNIPPET_LEAD_WORDS = 20;

/**
 * The `SNIPPET_SOURCE_WORDS` words of a long turn that say the most of `stems` (a word said
 * starts with a stem but for its last letter: "batteri" is said "battery"), where the snippet is
 * cut from; the whole turn when it is short or says none of them as written.
 */
export function snippetSource(text: string, stems: string[]): string {
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= SNIPPET_SOURCE_WORDS) return text;
  const starts = stems.map((stem) => (stem.length > 4 ? stem.slice(0, -1) : stem));
  const says = words.map((word) => {
    const lower = word.toLowerCase().replace(/^[^\p{L}\p{N}]+/u, '');
    return starts.some((start) => lower.startsWith(start));
  });
  let best = 0;
  let bestEnd = -1;
  let held = 0;
  for (const [at, said] of says.entries()) {
    if (said) held += 1;
    if (at >= SNIPPET_SOURCE_WORDS && says[at - SNIPPET_SOURCE_WORDS]) held -= 1;
    if (held > best) {
      best = held;
      bestEnd = at;
    }
  }
  if (bestEnd < 0) return text;
  // From a little before the window's first word said, so that what follows it is there too.
  const firstSaid = says.indexOf(true, Math.max(0, bestEnd - SNIPPET_SOURCE_WORDS + 1));
  const first = Math.max(0, Math.min(firstSaid - SNIPPET_LEAD_WORDS, words.length - SNIPPET_SOURCE_WORDS));
  return words.slice(first, first + SNIPPET_SOURCE_WORDS).join(' ');
}

type Input = {
  /** What a snippet marks (snippetQuery, query.ts). */
  marks: SQL;
  /** The query's terms, in the order the ranking weighed them. */
  terms: Term[];
  /** Each term's idf, by its position in `terms` (terms found nowhere have none). */
  idfByTerm: Record<string, number>;
  videos: Array<{ id: string; bestChunkIds: string[] }>;
  /** With a speaker filter: only these speakers' turns count. */
  speakerIds: string[] | null;
  /**
   * The search is typed as a question (asksQuestion): a moment is centred where it is answered,
   * after the words that raise it; words alone centre it where they are said.
   */
  question: boolean;
  /**
   * The stemmed words the question's kind adds ("root", "caus" for a "why": question-terms.ts),
   * counted as QA's retrieval counts them: only where the question's own words are said around.
   */
  cues: string[];
};

/**
 * Up to three moments per video: the best few-turn stretches of its best passages (stretches.ts,
 * each term weighing its idf), each opening at the turn where the words are densest and running
 * to the last turn of its stretch that says words of the query, with the first turn's words marked. A passage found by a speaker's name
 * alone (the words are not in any turn) opens at its first turn.
 */
export async function momentsOf(db: Db, input: Input): Promise<Map<string, Moment[]>> {
  const byVideo = new Map<string, Moment[]>();
  const chunkIds = input.videos.flatMap((video) => video.bestChunkIds);
  if (chunkIds.length === 0) return byVideo;
  const { rows } = await db.execute<{ ord: number; lexemes: string[] }>(sql`
    select (ord - 1)::int as ord, ${questionLexemes(sql`text`)} as lexemes
    from unnest(${sql.param(input.terms.map((term) => term.text))}::text[])
      with ordinality as t(text, ord)`);
  const weights = new Map<string, number>();
  const prefixes: string[] = [];
  for (const [ord, term] of input.terms.entries()) {
    const idf = input.idfByTerm[String(ord)];
    if (idf === undefined) continue;
    // A prefix matches its word stemmed too, as the passage query does (query.ts): "experiment"
    // finds "experience" (both "experi"), and the moment must open where that was said.
    const stemmed = rows[ord]?.lexemes ?? [];
    const keys = term.prefix ? [prefixLexeme(term.text), ...stemmed] : stemmed;
    if (term.prefix) prefixes.push(prefixLexeme(term.text));
    for (const key of keys) weights.set(key, Math.max(weights.get(key) ?? 0, idf));
  }
  // A cue weighs as the question's middle word: its own idf is not read for the page.
  const middle = [...weights.values()].sort((a, b) => a - b)[Math.floor(weights.size / 2)] ?? 0;
  const cues = new Set(input.cues.filter((cue) => !weights.has(cue)));
  for (const cue of cues) weights.set(cue, middle);
  const { rows: chunks } = await db.execute<{ id: string; videoId: string; first: number; last: number }>(sql`
    select id, video_id as "videoId", first_segment_index as first, last_segment_index as last
    from transcript_chunks where id = any(${sql.param(chunkIds)}::uuid[])`);
  const lexemes = [...weights.keys()].filter((key) => !prefixes.includes(key));
  const { turns } = await loadTurns(
    db,
    lexemes,
    mergedRanges(
      chunks.map((chunk) => ({
        videoId: chunk.videoId,
        firstSegmentIndex: chunk.first,
        lastSegmentIndex: chunk.last,
      })),
    ),
    { prefixes, speakerIds: input.speakerIds },
  );
  const openings: Array<{ videoId: string; turn: TermTurn; end: number }> = [];
  const turnsOf = Map.groupBy(turns, (turn) => turn.videoId);
  for (const video of input.videos) {
    const own = turnsOf.get(video.id) ?? [];
    const stretches = rankStretches(
      own,
      { weights, cues },
      MOMENTS_PER_VIDEO,
      input.question ? STRETCH_DEFAULTS : { ...STRETCH_DEFAULTS, neighbourWeights: EVEN_NEIGHBOURS },
    );
    for (const stretch of stretches) {
      const turn = own.find((candidate) => candidate.index === stretch.bestIndex) as TermTurn;
      // The moment runs on to the last turn of its stretch that still says words of the query.
      const saying = stretch.turns.filter((later) => later.index >= turn.index && later.terms.size > 0);
      openings.push({ videoId: video.id, turn, end: saying.at(-1)?.end ?? turn.end });
    }
    const firstChunk = chunks.find((chunk) => chunk.id === video.bestChunkIds[0]);
    const fallback = own.find((turn) => firstChunk && turn.index >= firstChunk.first);
    if (stretches.length === 0 && fallback)
      openings.push({ videoId: video.id, turn: fallback, end: fallback.end });
  }
  if (openings.length === 0) return byVideo;
  const { rows: snippets } = await db.execute<{ snippet: string }>(sql`
    select ts_headline('english', kh_html_escape(t.text), ${input.marks}, ${HEADLINE_OPTIONS}) as snippet
    from unnest(${sql.param(openings.map((opening) => snippetSource(opening.turn.text, [...weights.keys()])))}::text[])
      with ordinality as t(text, ord)
    order by ord`);
  openings.forEach((opening, at) => {
    const list = byVideo.get(opening.videoId) ?? [];
    list.push({
      start: opening.turn.start,
      end: opening.end,
      speaker: opening.turn.speaker,
      snippet: snippets[at]?.snippet ?? '',
    });
    byVideo.set(opening.videoId, list);
  });
  return byVideo;
}
