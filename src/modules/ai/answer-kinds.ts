import * as chrono from 'chrono-node';
import { analyse } from '../knowledge/nlp/document.ts';
import { decisionCueIn, findItems } from '../knowledge/nlp/items.ts';
import { type AnswerKind, answerKind } from '../search/question-terms.ts';
import type { Source } from './engine.ts';
import { asks } from './sentences.ts';

/**
 * How a sentence answers a question's kind (question-terms.ts): the local engine leads with the
 * best source holding such a sentence. Rules over the transcript's own words, as extraction reads
 * them (knowledge/nlp): no model.
 */

/** What the rules read of a sentence the engine may quote. */
export type KindSentence = {
  source: Source;
  /** The segment index of its turn. */
  turn: number;
  start: number;
  end: number;
  text: string;
  /** Stemmed words. */
  lexemes: Set<string>;
};

/** Words that give a cause. */
const CAUSE =
  /\b(because|root cause|caused by|due to|the reason|reason (?:is|was)|that's why|that is why|as a result|led to|contributing factors?)\b/i;
/**
 * A problem stated, the kind of thing a decision answers: "the cost is higher than we estimated",
 * "a split experience is worse than two weeks", "the sweep can take longer than five minutes",
 * "a correctness problem", "too expensive".
 */
const PROBLEM =
  /\b(?:higher|more|worse|longer|slower|bigger|larger|harder|riskier|more expensive) than (?:we |I |they |you |anyone )?(?:expected|estimated|planned|thought|hoped|budgeted)\b|\bis worse than\b|\b(?:takes?|took|taking) longer than\b|\b(?:the|a|one|our|big|main|real)(?: \w+)? (?:problem|issue|risk|concern|blocker|downside)\b|\btoo (?:expensive|costly|slow|risky|late|complex|complicated)\b|\b(?:can't|cannot) afford\b/i;
/**
 * A finding stated: "First finding. Of the twenty admins, fourteen closed…", "Root cause, then: …",
 * "Contributing factor: …", "we found that…", "it turns out…". Not "learned", which a review's
 * opening says too ("I want to show what we learned from twenty session recordings").
 */
const FINDING =
  /\b(?:(?:first|second|third|fourth|main|key|one|another|last|other) finding|findings?:|found (?:that|out)|we found|turns? out|turned out|(?:showed|shows) (?:that|us)|root cause|contributing factor|lessons? learned)\b/i;
/** How a problem came to light: "got paged", "the alert fired", "the dashboards showed", "customers reported". */
const DETECTION =
  /\b(?:paged|alert(?:ed|s)? (?:fired|went off)|alarms? (?:fired|went off)|dashboards? showed|noticed|spotted|detected|caught it|(?:customers?|users?) (?:reported|complained|wrote in)|were on chat)\b/i;
/**
 * What success is measured by: "Success means more workspaces…", "we track retention", "the
 * metric is…"; not "the experiment plan with the success metric by February 4", a task.
 */
const MEASURE =
  /\bsuccess (?:means|is|would mean|will mean|looks like)\b|\b(?:we|they|you|i) (?:will |'ll |would |should |can )?(?:measure|track)\b|\b(?:metric|measure|kpi|criterion|criteria|goal|target) (?:is|are|was|were|will be|would be)\b|\bmeasured by\b|\bsucceeds? if\b/i;
/** How far before a decision (in turns) the problem it answers may be raised. */
const PROBLEM_TURNS = 15;
/** A length of time: "lasted", "took", "forty-seven minutes", "a few weeks". */
const DURATION =
  /\b(lasted|took)\b|\b(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|[a-z]+ty(?:-[a-z]+)?|few|several)\s+(?:more\s+|full\s+)?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/i;

/** A clock time as said aloud, which chrono does not read: "at ten fourteen", "at ten thirty-one". */
const SPOKEN_TIME =
  /\bat (?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) (?:o'clock|oh [a-z]+|ten|eleven|twelve|[a-z]+teen|(?:twenty|thirty|forty|fifty)(?:-[a-z]+)?)\b/i;
/** What makes a time expression say when: a bare "Morning everyone" or "this evening" does not. */
const DATED = ['year', 'month', 'day', 'weekday', 'hour'] as const;
/** A day or a time said: "by February 11", "on January 30", "next week", "at ten fourteen". */
const saysWhen = (text: string) =>
  SPOKEN_TIME.test(text) ||
  chrono.parse(text).some((result) => DATED.some((component) => result.start.isCertain(component)));

/** The sentences that state a kind's answer, of the sentences given; `names` tells one that names the matter. */
type Finder = <S extends KindSentence>(
  sentences: S[],
  names: (sentence: S) => boolean,
) => (sentence: S) => boolean;

const stating =
  (states: (text: string) => boolean): Finder =>
  (_sentences, names) =>
  (sentence) =>
    states(sentence.text) && names(sentence);

/**
 * The items knowledge extraction finds in each source's own turns, each with the sentences whose
 * time holds where it starts: two when it starts where one ends and the next begins ("Then the
 * decision changes. Search v2 moves to February 13"), none when between the sentences read.
 */
function itemsIn<S extends KindSentence>(sentences: S[]) {
  return [...new Set(sentences.map((sentence) => sentence.source))].flatMap((source) => {
    const own = sentences.filter((sentence) => sentence.source === source);
    return findItems(analyse(source.turns), source.recordedAt).map((item) => {
      // The sentences the item says, else where its moment falls: several items in one turn
      // ("Daniel prepares…. Tom sets up…. Lena drafts…") are timed by estimate, their text is exact.
      const said = own.filter((sentence) => item.text.includes(sentence.text.trim()));
      return {
        item,
        own,
        holding:
          said.length > 0
            ? said
            : own.filter((sentence) => sentence.start <= item.start && item.start <= sentence.end),
      };
    });
  });
}

/**
 * Where a cause is given: a sentence that says so ("because", "root cause") and names the matter,
 * or is said in a meeting whose title does. When the best meeting gives none, a decision on the
 * matter is explained by a problem raised before it in that meeting that speaks of what it
 * decides: "Why did search v2 move to February?" is answered by "We load tested the reindex and
 * the cost is higher than we estimated", said eight turns before "Search v2 moves to February 13,
 * … with the reindex batched at night", where no one says "because".
 */
function causing<S extends KindSentence>(sentences: S[], names: (sentence: S) => boolean) {
  const stated = (sentence: S) => CAUSE.test(sentence.text) && names(sentence);
  const meeting = sentences[0]?.source.videoId;
  const inMeeting = sentences.filter((sentence) => sentence.source.videoId === meeting);
  if (inMeeting.some(stated)) return stated;
  const problems = new Set<S>();
  const decisions = itemsIn(inMeeting).flatMap(({ item, holding }) =>
    item.kind === 'decision' ? holding.filter(names) : [],
  );
  for (const decision of decisions) {
    // The problem the decision answers speaks of what it decides ("the cost of the reindex" before
    // "…with the reindex batched at night"): the one sharing most of its words, the first of those.
    const shared = (sentence: KindSentence) =>
      [...sentence.lexemes].filter((lexeme) => decision.lexemes.has(lexeme)).length;
    const raised = inMeeting
      .filter(
        (sentence) =>
          sentence.start < decision.start &&
          decision.turn - sentence.turn <= PROBLEM_TURNS &&
          PROBLEM.test(sentence.text) &&
          shared(sentence) > 0,
      )
      .sort((a, b) => shared(b) - shared(a) || a.start - b.start)[0];
    if (raised) problems.add(raised);
    else for (const reason of followedFrom(inMeeting, decision)) problems.add(reason);
  }
  return (sentence: S) => stated(sentence) || problems.has(sentence);
}

/** A turn that opens as a consequence of the turn before it: "Then we postpone…", "In that case…". */
const CONSEQUENCE = /^\W*(?:then|in that case)\b/i;

/**
 * What a decision follows from, when its turn opens with "then": the turn said just before it,
 * but its questions. "Customers keep asking, but … what they actually want is to read a transcript
 * on a plane. Nobody has asked to record offline." — "Then we postpone full offline mode."
 */
function followedFrom<S extends KindSentence>(sentences: S[], decision: S): S[] {
  const ownTurn = sentences.filter((sentence) => sentence.turn === decision.turn);
  if (ownTurn[0] !== decision || !CONSEQUENCE.test(decision.text)) return [];
  return sentences.filter((sentence) => sentence.turn === decision.turn - 1 && !asks(sentence.text));
}

/**
 * A person named as owning something, where a decision says so: "the checklist stays, and Priya
 * owns the redesign" is a decision to extraction, not a task with a day.
 */
const OWNS = /\b\p{Lu}\p{Ll}+ (?:owns|will own|is responsible for|is in charge of|takes over|leads)\b/u;

/**
 * Where someone takes a task on, as extraction finds an action item with an owner ("Daniel owns
 * it", "That is mine, due January 21", "Lena, can you…?" — "Yes, by Friday."), read in each
 * source's own turns; the answer starts at the last sentence of that turn, up to the owner's,
 * that names the matter: "Two: a lock panel and an alert. That is mine…" names the alert first.
 * A sentence naming the matter and who owns it answers too.
 */
const owning: Finder = (sentences, names) => {
  const starts = new Set<KindSentence>(
    sentences.filter((sentence) => OWNS.test(sentence.text) && names(sentence)),
  );
  for (const { item, own, holding } of itemsIn(sentences)) {
    const owned = holding[0];
    if (item.kind !== 'action_item' || !item.owner || !owned) continue;
    const naming = own.filter(
      (sentence) => sentence.turn === owned.turn && sentence.start <= owned.start && names(sentence),
    );
    const start = naming.at(-1);
    if (start) starts.add(start);
  }
  return (sentence) => starts.has(sentence);
};

/**
 * Where a task is taken on, as extraction finds an action item in each source's own turns, from
 * the sentence holding where it starts: "Actions: I build the queue worker by February 6."
 */
const acting: Finder = (sentences, names) => {
  const holding = new Set<KindSentence>(
    itemsIn(sentences).flatMap(({ item, holding }) =>
      item.kind === 'action_item' ? holding.slice(0, 1) : [],
    ),
  );
  return (sentence) => holding.has(sentence) && names(sentence);
};

/**
 * How each kind is answered, and where. A decision (taken, not reported), an owner, a day and an
 * open question name the matter — a word of the question besides the kind's own ("decide",
 * "owns", "due", "open question") — and answer from any meeting. A duration says nothing of the
 * matter ("roughly four hours" answers the turn before), so it answers only in the best source's
 * meeting. So does a cause, which names the matter or is said in a meeting whose title does: the
 * retrospective "of the search outage" gives its root cause without saying "search", but a
 * "because" in a weekly sync explains whatever it follows.
 */
type Naming = 'sentence' | 'sentence or title' | 'none';
/**
 * `exclusive`: the kind asks for facts (a day, an owner, a length of time, the questions asked),
 * so a further source is quoted only where it states one too; a cause or a decision is told with
 * what else was said about the matter. `earliest`: the answer is what was said first — a problem
 * comes to light once, and what is noticed after ("the dashboards showed search latency") is the
 * search for its cause.
 */
const ANSWERS: Record<
  AnswerKind['name'],
  { finds: Finder; naming: Naming; exclusive: boolean; earliest?: boolean }
> = {
  cause: { finds: causing, naming: 'sentence or title', exclusive: false },
  // "Got paged for the error rate" need not say "outage": the retrospective's title does.
  detection: {
    finds: stating((text) => DETECTION.test(text)),
    naming: 'sentence or title',
    exclusive: false,
    earliest: true,
  },
  // A finding need not name the matter ("Of the twenty admins, fourteen closed the panel"): the
  // best source's meeting is the study or the review asked about.
  finding: { finds: stating((text) => FINDING.test(text)), naming: 'none', exclusive: false },
  duration: { finds: stating((text) => DURATION.test(text)), naming: 'none', exclusive: true },
  decision: { finds: stating((text) => decisionCueIn(text) !== null), naming: 'sentence', exclusive: false },
  owner: { finds: owning, naming: 'sentence', exclusive: true },
  time: { finds: stating(saysWhen), naming: 'sentence', exclusive: true },
  'open question': { finds: stating(asks), naming: 'sentence', exclusive: true },
  // The tasks of a meeting about the matter need not name it: "Actions: I build the queue worker"
  // in the meeting on moving to a job queue.
  action: { finds: acting, naming: 'sentence or title', exclusive: true },
  // "Success means more workspaces…" follows the decision to run the experiment it measures.
  measure: { finds: stating((text) => MEASURE.test(text)), naming: 'none', exclusive: false },
};

/**
 * The sentences that answer the question's kind, if it has one, among `sentences`, whether from
 * any meeting, and what the question is about (its stemmed `words` but the kind's own).
 * `titleWords` are the stemmed words of a sentence's meeting's title.
 */
export function kindAnswers<S extends KindSentence>(
  question: string,
  words: string[],
  sentences: S[],
  titleWords: (sentence: S) => Set<string>,
):
  | {
      by: (sentence: S) => boolean;
      anyMeeting: boolean;
      exclusive: boolean;
      earliest: boolean;
      about: Set<string>;
    }
  | undefined {
  const kind = answerKind(question);
  if (!kind) return undefined;
  const { finds, naming, exclusive, earliest = false } = ANSWERS[kind.name];
  const about = words.filter((lexeme) => !kind.light.includes(lexeme));
  const says = (lexemes: Set<string>) => about.some((lexeme) => lexemes.has(lexeme));
  const names = (sentence: S) =>
    naming === 'none' ||
    says(sentence.lexemes) ||
    (naming === 'sentence or title' && says(titleWords(sentence)));
  return {
    by: finds(sentences, names),
    anyMeeting: naming === 'sentence',
    exclusive,
    earliest,
    about: new Set(about),
  };
}
