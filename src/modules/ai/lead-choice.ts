import type { kindAnswers } from './answer-kinds.ts';
import type { Source } from './engine.ts';
import { bestSentence, type Sentence } from './excerpts.ts';
import { asks } from './sentences.ts';

/**
 * Which source an answer leads with (local-engine.ts). Retrieval's order stands unless the
 * question says what should lead: a kind of answer (a cause, a day, an owner…), a person (what
 * they said, asked, or what others replied to them), or a thing asked for by name.
 */

/** "What did Sam ask…", "What questions did Marketing ask…"; not "How did Kirsty answer Sian's question…". */
const ASKS_WHAT_WAS_ASKED = /\b(?:ask|asks|asked|asking)\b/i;

/**
 * What a question asks for by name: "What is the success metric for the experiment?" asks for a
 * success metric, and the experiment only says which. The words after "what is the" up to the
 * first word that says of what.
 */
const ASKS_FOR =
  /^what(?:'s| is| was| are| were) the ((?:[\p{L}\d-]+\s+){0,3}?[\p{L}\d-]+?)(?=\s+(?:of|for|in|on|about|with|from|at|to|that|which|who|between|behind|and|when|after|before|during)\b|\s*[?.]?$)/iu;

export const askedFor = (question: string): string => question.trim().match(ASKS_FOR)?.[1] ?? '';

type Relevance = (sentence: Sentence, only?: Set<string>) => number;

export function leadChoice({
  question,
  sources,
  own,
  relevance,
  answersKind,
  named,
  repliedTo,
  asked,
  askedForWords,
}: {
  question: string;
  /** In retrieval's order. */
  sources: Source[];
  /** A source's sentences. */
  own: (source: Source) => Sentence[];
  relevance: Relevance;
  answersKind: ReturnType<typeof kindAnswers<Sentence>>;
  /** The speakers the question asks about ("What did Sam say…"). */
  named: Set<string>;
  /** The speakers others replied to ("Who disagreed with Maya?"). */
  repliedTo: Set<string>;
  /** The question's stemmed content words. */
  asked: string[];
  /** The stemmed words of what it asks for by name (`askedFor`); those of them not in `asked` are not asked for. */
  askedForWords: Set<string>;
}) {
  // A kind answered only in the best source's meeting (a duration, a cause) is not looked for elsewhere.
  const kindAnswerable = (source: Source) =>
    answersKind !== undefined && (answersKind.anyMeeting || source.videoId === sources[0]?.videoId);
  // A source that answers the question's kind leads (see kindAnswers): the best one; where the
  // answer names the matter, the one whose answering sentence says most of it ("Daniel
  // prepares the night batch job" before "I want a dashboard for job age"); where what was
  // said first answers, the one saying it first ("How was the outage detected?": the page at
  // 10:20, not the dashboards looked at after it). Null: the source does not answer it.
  const kindScore = (source: Source) => {
    if (!answersKind || !kindAnswerable(source)) return null;
    const stating = own(source).filter(answersKind.by);
    if (stating.length === 0) return null;
    if (answersKind.earliest) return -Math.min(...stating.map((sentence) => sentence.start));
    return answersKind.anyMeeting
      ? Math.max(...stating.map((sentence) => relevance(sentence, answersKind.about)))
      : 0;
  };
  const kindScores = sources.map(kindScore);
  const answeringScores = kindScores.filter((score) => score !== null);
  // The first of the best: retrieval's order breaks ties.
  const answering =
    answeringScores.length > 0 ? sources[kindScores.indexOf(Math.max(...answeringScores))] : undefined;

  const byNamed = namedSpeech({ question, sources, own, relevance, named, repliedTo });
  const namedSaid = (source: Source) =>
    byNamed !== undefined && own(source).some((sentence) => byNamed(sentence) && relevance(sentence) > 0);

  // "What is the success metric for the experiment?": a source that says a success metric, in
  // its best sentence (half its words at least: "the main colour" is not "the main target
  // age"), and the experiment, anywhere in it, leads.
  const wanted = [...askedForWords].filter((lexeme) => asked.includes(lexeme));
  const saysAskedFor = (source: Source) => {
    const best = bestSentence(own(source), relevance);
    const saying = wanted.filter((lexeme) => best?.lexemes.has(lexeme)).length;
    if (saying === 0 || saying < wanted.length / 2) return false;
    const said = new Set(own(source).flatMap((sentence) => [...sentence.lexemes]));
    return asked.every((lexeme) => wanted.includes(lexeme) || said.has(lexeme));
  };
  const ordered = answering
    ? [answering, ...sources.filter((source) => source !== answering)]
    : byNamed
      ? [...sources.filter(namedSaid), ...sources.filter((source) => !namedSaid(source))]
      : wanted.length > 0
        ? askedForFirst(sources, saysAskedFor)
        : sources;
  return { ordered, answering, byNamed, kindAnswerable };
}

/**
 * The sentences that lead for a question naming people. "What did Sam say about SAML?": what
 * they said; "What did Sam ask about search?": what they asked, when they asked something on
 * it; "Who disagreed with Maya?": what others said right after Maya. Undefined when it names no one.
 */
function namedSpeech({
  question,
  sources,
  own,
  relevance,
  named,
  repliedTo,
}: {
  question: string;
  sources: Source[];
  own: (source: Source) => Sentence[];
  relevance: Relevance;
  named: Set<string>;
  repliedTo: Set<string>;
}): ((sentence: Sentence) => boolean) | undefined {
  if (repliedTo.size > 0) {
    const replyTurns = new Set(
      sources.flatMap((source) =>
        source.turns
          .filter((turn, at) => {
            const before = source.turns[at - 1];
            return (
              before?.index === turn.index - 1 &&
              before.speaker !== null &&
              repliedTo.has(before.speaker) &&
              turn.speaker !== null &&
              !repliedTo.has(turn.speaker)
            );
          })
          .map((turn) => `${source.number}:${turn.index}`),
      ),
    );
    return (sentence) => replyTurns.has(`${sentence.source.number}:${sentence.turn}`);
  }
  if (named.size === 0) return undefined;
  const namedSays = (sentence: Sentence) => sentence.speaker !== null && named.has(sentence.speaker);
  const namedAsks = (sentence: Sentence) => namedSays(sentence) && asks(sentence.text);
  return ASKS_WHAT_WAS_ASKED.test(question) &&
    sources.some((source) => own(source).some((sentence) => namedAsks(sentence) && relevance(sentence) > 0))
    ? namedAsks
    : namedSays;
}

/**
 * `sources` with the first whose best sentence says what the question asks for first, when
 * retrieval's first does not say it: "Success means more workspaces with at least one channel…"
 * answers "What is the success metric for the experiment?", where the stretch that says
 * "experiment" most asks what happens to the workspaces in it.
 */
function askedForFirst(sources: Source[], saysAskedFor: (source: Source) => boolean): Source[] {
  const [first] = sources;
  if (!first || saysAskedFor(first)) return sources;
  const saying = sources.find(saysAskedFor);
  return saying ? [saying, ...sources.filter((source) => source !== saying)] : sources;
}
