import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { QueryEmbedding } from './embeddings.ts';
import {
  type MeetingPart,
  meetingPart,
  meetingPartWords,
  partStretches,
  partTurns,
} from './meeting-parts.ts';
import {
  answerKind,
  cueWords,
  focusWordsOf,
  framingWordsOf,
  idf,
  questionWeights,
  type SpeakerName,
  titleBoosts,
} from './question-terms.ts';
import { type RetrievalScope, retrieveChunks, videoScopeConditions } from './retrieval.ts';
import { namesAbsentSpeakers, scopeEvidence } from './scope-evidence.ts';
import { questionLexemes, storedLexemes } from './stemming.ts';
import { type RankedStretch, rankStretches, type TermTurn } from './stretches.ts';
import { loadTurns, type Meeting, mergedRanges, type StretchTurn } from './transcript-turns.ts';
import { organizationPassages, organizationPassagesHolding } from './video-terms.ts';

/**
 * The stretches of transcripts (a few turns each) that answer a question, for the AI layer to
 * quote and cite. A scope of a few meetings is read whole: every turn is scored (stretches.ts);
 * a larger one is narrowed first to the turns of the passages the index ranks best
 * (retrieval.ts), fused with vectors when the question has one.
 */

/** A scope of at most this many videos and turns is read whole rather than narrowed through passages. */
const WHOLE_SCOPE_VIDEOS = 20;
const WHOLE_SCOPE_TURNS = 6_000;
/** Passages whose turns are ranked in a larger scope. */
const CANDIDATE_PASSAGES = 10;
/** A word in more passages than this share of the organization is common: its idf is that of the cap. */
const COMMON_SHARE = 0.2;

export type RetrievedStretch = {
  videoId: string;
  videoTitle: string;
  /** When the meeting was held: its recording date, else when it was added. */
  recordedAt: Date;
  firstSegmentIndex: number;
  lastSegmentIndex: number;
  /** The turn the stretch is centred on: where its best words are said. */
  bestSegmentIndex: number;
  startSeconds: number;
  endSeconds: number;
  speakerNames: string[];
  /** The stretch as turns, `Speaker: words` per line. */
  text: string;
  turns: StretchTurn[];
  score: number;
};

export type StretchRetrieval = {
  stretches: RetrievedStretch[];
  /**
   * How much of what the question is about the best stretch says: the share of its content
   * words' weight (idf over the whole organization, so that words every meeting uses weigh
   * little), 0–1. Low when the scope does not discuss the question.
   */
  coverage: number;
  /** How the scope stands against the whole organization for the question; only when asked (`judgeScope`). */
  judgement: ScopeJudgement | null;
  /**
   * Words of the question, as typed, that nothing in the organizations says ("kangaroos" in "What
   * is the budget for kangaroos?"): what the stretches found cannot be about. Framing words and
   * the names of speakers are never among them.
   */
  unsaid: string[];
  /**
   * The part of its one meeting a question asks about ("the wrap up of the meeting"), when the
   * stretches come from that part only: the question's words need not be said there.
   */
  part?: MeetingPart;
};

/** Whether the question is about this scope at all, or about another part of the organization. */
export type ScopeJudgement = {
  /**
   * How the scope's best passage compares with the whole organization's, by the share of the
   * question's content words it holds (1 when the scope is the organization, or holds its best):
   * low when the answer is said elsewhere, not here.
   */
  standing: number;
  /**
   * How much less likely (natural log) the question is to be about the scope's best meeting than
   * about the organization's: 0 when the scope holds the meeting the question suits best.
   */
  likelihoodGap: number;
  /**
   * How many content words the likelihood gap sums over: a longer question gathers a larger gap
   * from its own meeting too.
   */
  contentWords: number;
  /** The question names people of the organization (by name or role) none of whom speaks in the scope. */
  namesAbsentSpeakers: boolean;
};

/** A word of the question as typed, and its stem. */
type TypedWord = { word: string; lexeme: string };

type Analysis = {
  lexemes: string[];
  framing: string[];
  /** The stemmed words the question names as its matter ("about the buttons"). */
  focus: string[];
  organizationIdf: Record<string, number>;
  /** Words of the question that no transcript, speaker, title or description of the organizations says. */
  unsaid: TypedWord[];
};

/**
 * The question's stemmed words, which of them frame it, the idf over the organizations'
 * passages of each of its words and of the words its kind adds (`cues`), and which words of
 * `asked` (the question, or the part of it the asker just typed) nothing in the organizations
 * says (a passage names its speakers; a title or description may say what its transcript does not).
 */
async function analyse(
  db: Db,
  { question, asked, cues }: { question: string; asked: string; cues: string[] },
  organizationIds: string[],
): Promise<Analysis> {
  const { rows } = await db.execute<Analysis>(sql`
    with question as (
      select lexeme from unnest(${questionLexemes(question)}) as lexeme
    ),
    asked as (
      select lexeme from question union select unnest(${sql.param(cues)}::text[])
    ),
    total as (select ${organizationPassages(sql`${sql.param(organizationIds)}::uuid[]`)} as n),
    -- How many passages hold each word, from each video's counts (video-terms.ts).
    counted as (
      select a.lexeme, least(held.n, ceil(total.n * ${sql.raw(String(COMMON_SHARE))})) as holding, total.n
      from asked a cross join total
      cross join lateral (
        select ${organizationPassagesHolding(sql`${sql.param(organizationIds)}::uuid[]`, sql`a.lexeme`)} as n
      ) held
    ),
    typed as (
      select distinct on (lexeme) typed.match[1] as word, lexeme, typed.at
      from regexp_matches(${asked}, '[[:alnum:]]+(?:[''’-][[:alnum:]]+)*', 'g') with ordinality as typed(match, at)
      cross join unnest(${questionLexemes(sql`typed.match[1]`)}) as lexeme
      order by lexeme, typed.at
    )
    select
      coalesce((select array_agg(lexeme order by lexeme) from question), '{}') as lexemes,
      coalesce((
        select json_agg(json_build_object('word', t.word, 'lexeme', t.lexeme) order by t.at)
        from typed t join counted c using (lexeme)
        -- A hyphenated word counts by its parts: "Bayes-net" is said where "Bayes - net" is.
        where c.holding = 0 and position('-' in t.lexeme) = 0 and not exists (
          select 1 from videos v
          where v.organization_id = any(${sql.param(organizationIds)}::uuid[]) and not v.is_deleted
            and v.search @@ quote_literal(t.lexeme)::tsquery)
      ), '[]') as unsaid,
      ${questionLexemes(framingWordsOf(question))} as framing,
      ${questionLexemes(focusWordsOf(question))} as focus,
      coalesce((select json_object_agg(lexeme, ln(1 + (n - holding + 0.5) / (holding + 0.5))) from counted), '{}')
        as "organizationIdf"`);
  return rows[0] ?? { lexemes: [], framing: [], focus: [], organizationIdf: {}, unsaid: [] };
}

/** The videos of a scope small enough to read whole, or null when it is larger. */
async function wholeScope(db: Db, scope: RetrievalScope): Promise<string[] | null> {
  const { rows } = await db.execute<{ id: string; turns: number }>(sql`
    select v.id, (select count(*) from transcript_segments s where s.video_id = v.id)::int as turns
    from videos v where ${videoScopeConditions(scope)}
    limit ${WHOLE_SCOPE_VIDEOS + 1}`);
  if (rows.length > WHOLE_SCOPE_VIDEOS) return null;
  const turns = rows.reduce((sum, row) => sum + row.turns, 0);
  return turns <= WHOLE_SCOPE_TURNS ? rows.map((row) => row.id) : null;
}

/** The speakers of the turns, with their names' stemmed words. */
async function speakerNames(db: Db, turns: TermTurn[]): Promise<SpeakerName[]> {
  const names = [...new Set(turns.flatMap((turn) => (turn.speaker ? [turn.speaker] : [])))];
  if (names.length === 0) return [];
  const { rows } = await db.execute<SpeakerName>(sql`
    select name, tsvector_to_array(to_tsvector('english', name)) as lexemes
    from unnest(${sql.param(names)}::text[]) as name`);
  return rows;
}

/** The stemmed words of each video's title and description. */
async function titleLexemes(db: Db, videoIds: string[]) {
  if (videoIds.length === 0) return [];
  const { rows } = await db.execute<{ id: string; lexemes: string[] }>(sql`
    select id, ${storedLexemes(sql`title || ' ' || coalesce(description, '')`)} as lexemes
    from videos where id = any(${sql.param(videoIds)}::uuid[])`);
  return rows;
}

/** Turn-level idf over the turns read: in a scope read whole, how rare a word is among its turns. */
function turnIdf(turns: TermTurn[]) {
  const holding = new Map<string, number>();
  for (const turn of turns)
    for (const term of turn.terms.keys()) holding.set(term, (holding.get(term) ?? 0) + 1);
  return (lexeme: string) => idf(turns.length, holding.get(lexeme) ?? 0);
}

function present(stretch: RankedStretch, meetings: Map<string, Meeting>): RetrievedStretch {
  // Every stretch is made of turns, each read with its meeting (loadTurns).
  const meeting = meetings.get(stretch.videoId) as Meeting;
  return {
    videoId: stretch.videoId,
    videoTitle: meeting.title,
    recordedAt: meeting.recordedAt,
    firstSegmentIndex: stretch.firstIndex,
    lastSegmentIndex: stretch.lastIndex,
    bestSegmentIndex: stretch.bestIndex,
    startSeconds: stretch.start,
    endSeconds: stretch.end,
    speakerNames: [...new Set(stretch.turns.flatMap((turn) => (turn.speaker ? [turn.speaker] : [])))],
    text: stretch.turns
      .map((turn) => (turn.speaker ? `${turn.speaker}: ${turn.text}` : turn.text))
      .join('\n'),
    turns: stretch.turns.map(({ index, start, end, speaker, text }) => ({
      index,
      start,
      end,
      speaker,
      text,
    })),
    score: stretch.score,
  };
}

/**
 * The best `limit` stretches for a question in a scope, best first, and how well the best one
 * covers it (see StretchRetrieval); with `judgeScope`, how the scope stands against the whole
 * organization too (two more reads, for deciding whether to answer). `queryEmbedding` fuses
 * vector ranks into the choice of passages in a larger scope (a scope read whole is ranked by its words).
 * `asked` is the part of the question whose unsaid words are reported (a follow-up's own words,
 * not those of the questions it joins): the whole question by default.
 */
export async function retrieveStretches(
  db: Db,
  question: string,
  scope: RetrievalScope,
  {
    limit = 5,
    queryEmbedding,
    judgeScope = false,
    asked = question,
  }: { limit?: number; queryEmbedding?: QueryEmbedding; judgeScope?: boolean; asked?: string } = {},
): Promise<StretchRetrieval> {
  const nothing: StretchRetrieval = { stretches: [], coverage: 0, judgement: null, unsaid: [] };
  if (scope.organizationIds.length === 0 || (scope.videoIds && scope.videoIds.length === 0)) return nothing;
  const cues = cueWords(question);
  const analysis = await analyse(db, { question, asked, cues }, scope.organizationIds);
  if (analysis.lexemes.length === 0) return nothing;
  const framing = new Set(analysis.framing);
  const unsaid = unsaidContent(analysis, asked, framing);
  const none = { ...nothing, unsaid };

  // The turns are read for the question's words and those its kind adds.
  const wanted = [...new Set([...analysis.lexemes, ...cues])];
  const whole = queryEmbedding ? null : await wholeScope(db, scope);
  let turns: TermTurn[];
  let meetings: Map<string, Meeting>;
  if (whole) {
    if (whole.length === 0) return none;
    ({ turns, meetings } = await loadTurns(
      db,
      wanted,
      whole.map((videoId) => ({ videoId, first: 0, last: 2_147_483_647 })),
    ));
  } else {
    const passages = await retrieveChunks(db, question, scope, { limit: CANDIDATE_PASSAGES, queryEmbedding });
    if (passages.length === 0) return none;
    ({ turns, meetings } = await loadTurns(db, wanted, mergedRanges(passages)));
  }
  const organizationIdf = (lexeme: string) => analysis.organizationIdf[lexeme] ?? 0;
  // Independent lookups: one round trip's wait, not two.
  const [speakers, titleWords] = await Promise.all([
    speakerNames(db, turns),
    titleLexemes(db, [...meetings.keys()]),
  ]);
  const weighed = questionWeights({
    question,
    lexemes: analysis.lexemes,
    framing,
    focus: new Set(analysis.focus),
    speakers,
    idf: whole ? turnIdf(turns) : organizationIdf,
  });
  // How the scope stands is asked of the database while the turns are ranked here.
  const judgement = judgeScope
    ? Promise.all([
        scopeEvidence(db, scope, weighed.content, organizationIdf),
        namesAbsentSpeakers(db, scope, question, analysis.lexemes),
      ]).then(([evidence, absent]) => ({
        ...evidence,
        contentWords: weighed.content.length,
        namesAbsentSpeakers: absent,
      }))
    : null;
  // A question about the start or the end of its one meeting is answered from that part (its
  // own words: a follow-up to "the wrap up" asks of the whole meeting again).
  const part = whole?.length === 1 ? meetingPart(asked) : undefined;
  const read = part ? partTurns(turns, part) : turns;
  const words = { ...weighed, videoBoost: titleBoosts(titleWords, weighed.content, organizationIdf) };
  const found = rankStretches(read, words, limit);
  const ranked = part ? partStretches(read, found, limit) : found;
  return {
    ...(part ? { part } : {}),
    stretches: ranked.map((stretch) => present(stretch, meetings)),
    coverage: Math.max(0, ...ranked.map((stretch) => coverageOf(stretch, weighed.content, organizationIdf))),
    judgement: await judgement,
    unsaid,
  };
}

/** Words that stand for whoever or whatever ("Did anyone disagree?"): they name nothing to find. */
const INDEFINITE = /^(?:any|every|some|no)(?:one|body|thing)$/i;
/** The word after "how" asks for an amount or a degree ("how many", "how often"): it names nothing. */
const HOW_WORD = /\bhow\s+(\p{L}+)/giu;

/**
 * The question's unsaid words that say what it is about, once each: not how it is asked
 * ("discuss", "how many"), the kind words every question shares, nor "anyone".
 */
function unsaidContent(analysis: Analysis, question: string, framing: Set<string>) {
  const light = new Set(answerKind(question)?.light);
  const asking = new Set([...question.matchAll(HOW_WORD)].map((match) => match[1]?.toLowerCase()));
  // "wrap up", "concluding comments": where in the meeting, not what about.
  const placing = new Set(meetingPartWords(question).toLowerCase().split(/\W+/));
  return [
    ...new Set(
      analysis.unsaid
        .filter(
          (typed) =>
            !framing.has(typed.lexeme) &&
            !light.has(typed.lexeme) &&
            !INDEFINITE.test(typed.word) &&
            !asking.has(typed.word.toLowerCase()) &&
            !placing.has(typed.word.toLowerCase()),
        )
        .map((typed) => typed.word),
    ),
  ];
}

/** The share of the content words' organization-wide weight that a stretch says. */
function coverageOf(stretch: RankedStretch, content: string[], weight: (lexeme: string) => number) {
  const total = content.reduce((sum, lexeme) => sum + weight(lexeme), 0);
  if (total === 0) return 1;
  const said = new Set(stretch.turns.flatMap((turn) => [...turn.terms.keys()]));
  return content.reduce((sum, lexeme) => sum + (said.has(lexeme) ? weight(lexeme) : 0), 0) / total;
}
