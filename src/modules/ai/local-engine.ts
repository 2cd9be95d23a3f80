import type { Db } from '../../db/client.ts';
import { meetingPartWords } from '../search/meeting-parts.ts';
import { answerKind, asksWhoDid, namedSpeakers } from '../search/question-terms.ts';
import { kindAnswers } from './answer-kinds.ts';
import { asTimeline, changeOf, dayWriter, meetingOf, spansDays } from './answer-timeline.ts';
import { type AnswerEngine, type Citation, notFound, type Source, unmentioned } from './engine.ts';
import { bestSentence, centreOf, excerpt, leadFrom, type Sentence, usefulOf } from './excerpts.ts';
import { furtherSources } from './further-sources.ts';
import { askedFor, leadChoice } from './lead-choice.ts';
import { namedDays } from './named-days.ts';
import {
  introduced,
  reportedSpeech,
  reportingVerb,
  sourceWords,
  statesLabel,
  statesTasks,
} from './reported-speech.ts';
import { ended } from './sentences.ts';
import { sentencesBySource, sentencesOf, stem } from './source-sentences.ts';

/**
 * The offline engine: answers with the transcript's own sentences, each source cited once. The
 * best source leads (from its sentence that best answers, up to `LEAD_WORDS`), and each further
 * source adds the sentence that best answers from it: about the length of a person's answer
 * (QMSum's reference answers average 65 words), measured against its references in
 * docs/ai-quality.md. Each part says who said it, in reported speech and without "uh" and
 * restarts (citations quote verbatim); sources it had no room for follow as "See also".
 * Deciding whether the scope answers at all is retrieval's (see qa.ts).
 */

/** How much a word of the questions a follow-up follows weighs, against one of its own. */
const FOLLOWED_WEIGHT = 0.5;
/** Words the best source may give, from its answering sentence on. */
const LEAD_WORDS = 40;
/** Words each further source may give. */
const OTHER_WORDS = 12;
/** Words an answer may have in all (but for a first sentence longer than that). */
const ANSWER_WORDS = 100;
/** What every sentence of the part of a meeting asked about weighs. */
const PART_RELEVANCE = 1;

/**
 * What the answer takes from a source as a person reporting a meeting writes it: tidied, in
 * reported speech, introduced by who speaks ("Marketing thought …", the question's own verb) at
 * each change of speaker (`speakerBefore` is the one the answer's previous part ended with), then
 * the source's marker. With `day`, the part opens a meeting held on another day than the answer's
 * other meetings, and says when ("On January 12, Maya said …").
 */
function written(
  taken: Sentence[],
  speakerBefore: string | null,
  voice: {
    verb: (speaker: string) => string;
    lowerCase: (word: string) => boolean;
    isName: (word: string) => boolean;
    listedTasks: Set<Sentence>;
  },
  day?: string,
) {
  // Sentences going on, in their turn, after one that states a decision or tasks after a label,
  // and tasks listed in their turn however they are quoted.
  const afterLabel = goingOnAfter(taken, (sentence) => statesLabel(ended(sentence.said)));
  const continuesLabel = (sentence: Sentence) => voice.listedTasks.has(sentence) || afterLabel.has(sentence);
  const text = taken
    .map((sentence, at) => {
      const speakerChanges =
        (at === 0 ? (day ? null : speakerBefore) : taken[at - 1]?.speaker) !== sentence.speaker;
      const said = reportedSpeech(ended(sentence.said), sentence.speaker, continuesLabel(sentence));
      const part =
        speakerChanges && sentence.speaker
          ? introduced(sentence.speaker, voice.verb(sentence.speaker), said, voice)
          : said;
      if (at > 0 || !day) return part;
      return sentence.speaker ? `On ${day}, ${part}` : `On ${day}: ${part}`;
    })
    .join(' ');
  return `${text} [${taken[0]?.source.number}]`;
}

/** The sentences of `sequence` said, in their turn, after one that `states`. */
function goingOnAfter(sequence: Sentence[], states: (sentence: Sentence) => boolean): Set<Sentence> {
  const going = new Set<Sentence>();
  sequence.forEach((sentence, at) => {
    const before = sequence[at - 1];
    if (
      before?.source === sentence.source &&
      before.turn === sentence.turn &&
      (going.has(before) || states(before))
    )
      going.add(sentence);
  });
  return going;
}

/**
 * The sentences going on, in their turn, with tasks listed after their label ("Actions: … I send
 * the notes when it is out."): plans, which keep their tense even when the answer quotes from
 * them on, without the label. A decision's turn goes on in the past ("the earlier decision was on
 * hold"): it is moved back.
 */
const tasksListed = (sentences: Sentence[]) =>
  goingOnAfter(sentences, (sentence) => statesTasks(ended(sentence.said)));

/** A citation of a source's sentences from `first` to `last`, quoting `quoted` verbatim. */
const citationOf = (first: Sentence, last: Sentence, quoted: Sentence[]): Citation => ({
  source: first.source.number,
  videoId: first.source.videoId,
  videoTitle: first.source.videoTitle,
  heldAt: first.source.recordedAt.toISOString(),
  start: first.start,
  end: last.end,
  speaker: first.speaker,
  quote: quoted.map((sentence) => sentence.text).join(' '),
});

/** An answer's sources in order, its parts, and where a later meeting changes its lead's decision. */
type Composed = { ordered: Source[]; parts: Sentence[][]; change?: Sentence };

/**
 * The answer told as it happened: when its lead states a decision that a source from a later
 * meeting changes (answer-timeline.ts), that source follows the lead, quoted from where it
 * changes it, so that the answer does not end at a decision since replaced.
 */
function withLaterChange(
  composed: Composed,
  compose: (ordered: Source[], startAt: Map<Source, Sentence>) => Composed,
  own: (source: Source) => Sentence[],
  relevance: (sentence: Sentence) => number,
): Composed {
  const lead = composed.parts[0]?.[0];
  if (!lead) return composed;
  const others = composed.ordered.filter((source) => source !== lead.source);
  const startAt = changeOf(
    lead,
    others,
    (source) => usefulOf(own(source)),
    (sentence) => relevance(sentence) > 0,
  );
  if (!startAt) return composed;
  const rest = others.filter((source) => source !== startAt.source);
  return {
    ...compose([lead.source, startAt.source, ...rest], new Map([[startAt.source, startAt]])),
    change: startAt,
  };
}

export function createLocalEngine(db: Db): AnswerEngine {
  return {
    name: 'local',
    async answer({ question, sources, earlier = [], unsaid = [], part }) {
      const spans = sentencesOf(sources);
      if (spans.length === 0) return notFound(unsaid);
      const names = [...new Set(spans.flatMap((span) => (span.speaker ? [span.speaker] : [])))];
      const titles = [...new Set(sources.map((source) => source.videoTitle))];
      // One query stems the question whole (to tell whom it names), the questions it follows, the
      // speakers' names, the meetings' titles and every sentence.
      const stemmed = await stem(db, question, earlier.join(' '), [
        question,
        ...names,
        ...titles,
        ...spans.map((span) => span.text),
        askedFor(question),
        meetingPartWords(question),
      ]);
      if (stemmed.question.length === 0) return notFound(unsaid);
      const [asked = [], ...rest] = stemmed.texts;
      // The last texts stemmed are what the question asks for by name ("success metric") and the
      // words that name the part of the meeting it asks about ("wrap up").
      const askedForWords = rest.at(-2) ?? [];
      const partWords = part ? (rest.at(-1) ?? []) : [];
      const speakers = names.map((name, at) => ({ name, lexemes: rest[at] ?? [] }));
      const titleWords = new Map(titles.map((title, at) => [title, new Set(rest[names.length + at])]));
      const sentences: Sentence[] = spans.map((span, at) => ({
        ...span,
        lexemes: new Set(rest[names.length + titles.length + at]),
      }));
      // Each question word weighs its idf over these sentences: the distinctive words count most.
      const idf = (lexeme: string) =>
        Math.log(
          1 + sentences.length / (1 + sentences.filter((sentence) => sentence.lexemes.has(lexeme)).length),
        );
      const ownWeight = new Map(stemmed.question.map((lexeme): [string, number] => [lexeme, idf(lexeme)]));
      // A follow-up that names nothing of its own ("Who owns it?" after "When does search v2
      // ship?") is about what was asked before: those words count, for less. One that names
      // something ("Why did it move?") is answered from where that is said, as retrieval found it.
      const light = new Set(answerKind(question)?.light);
      const followsOn = stemmed.question.every((lexeme) => light.has(lexeme));
      const weight = new Map([
        ...(followsOn ? stemmed.followed : []).map((lexeme): [string, number] => [
          lexeme,
          FOLLOWED_WEIGHT * idf(lexeme),
        ]),
        ...ownWeight,
      ]);
      // Confidence is how much of the question's own words the answer says.
      const total = [...ownWeight.values()].reduce((sum, value) => sum + value, 0);
      const days = namedDays(question, stemmed.question);
      /**
       * The weight of the question's words (of `only`, when given) a sentence says. From the part
       * of a meeting asked about ("the wrap up"), every sentence answers alike: each source is
       * told from its start, in the order said.
       */
      const relevance = (sentence: Sentence, only?: Set<string>) =>
        part && !only
          ? PART_RELEVANCE
          : [...sentence.lexemes].reduce(
              (sum, lexeme) =>
                sum +
                ((!only || only.has(lexeme)) && (days.get(lexeme)?.(sentence.text) ?? true)
                  ? (weight.get(lexeme) ?? 0)
                  : 0),
              0,
            );
      const answersKind = kindAnswers(
        question,
        [...weight.keys()],
        sentences,
        (sentence) => titleWords.get(sentence.source.videoTitle) ?? new Set(),
      );
      // A reply leads when it says a word of the question or comes from someone the question names
      // (as retrieval reads names: question-terms.ts); not when it asks what was asked.
      const asksForQuestions = /\b(ask|asks|asked|asking|question|questions|questioned)\b/i.test(question);
      const naming = new Set(
        namedSpeakers(question, new Set(asked), speakers).map((speaker) => speaker.name),
      );
      // "Who disagreed with Maya?": the people named are the ones replied to, not the ones asked about.
      const whoDid = asksWhoDid(question);
      const repliedTo = whoDid ? naming : new Set<string>();
      const named = whoDid ? new Set<string>() : naming;
      const replyLeads = (reply: Sentence) =>
        !asksForQuestions && (relevance(reply) > 0 || (reply.speaker !== null && named.has(reply.speaker)));

      const own = sentencesBySource(sentences);
      const {
        ordered: leadingFirst,
        answering,
        byNamed,
        kindAnswerable,
      } = leadChoice({
        question,
        sources,
        own,
        relevance,
        answersKind,
        named,
        repliedTo,
        asked: [...ownWeight.keys()],
        askedForWords: new Set(askedForWords),
      });
      // Once a source answers a question asking for one fact, the others are quoted only where
      // they answer it too: "When does search v2 ship?" wants days, not "Happy to start with
      // search"; the rest are cited after "See also".
      const kindOnly = answering !== undefined && answersKind?.exclusive === true;
      const quoting = furtherSources({
        sentences,
        own,
        asked: [...ownWeight.keys()],
        speakerWords: new Map(speakers.map((speaker) => [speaker.name, speaker.lexemes])),
        titleWords,
        best: (source) => bestSentence(own(source), relevance, byNamed),
        kind: answersKind,
      });
      /** The answer's parts, a source's excerpt each, in `ordered` order; `startAt` fixes where some start. */
      const compose = (ordered: Source[], startAt = new Map<Source, Sentence>()) => {
        const parts: Sentence[][] = [];
        let words = 0;
        for (const source of ordered) {
          const leading = parts.length === 0;
          if (!leading && kindOnly && !kindAnswerable(source) && !startAt.has(source)) continue;
          if (!leading && !startAt.has(source) && !quoting.quoted(parts[0]?.[0] as Sentence, source))
            continue;
          const taken = excerpt(own(source), relevance, {
            answersKind: leading
              ? answersKind?.by
              : kindOnly
                ? quoting.statingAsFully(parts[0]?.[0] as Sentence)
                : undefined,
            kindOnly: !leading && kindOnly,
            kindRelevance: answersKind?.anyMeeting
              ? (sentence) => relevance(sentence, answersKind.about)
              : undefined,
            startAt: startAt.get(source),
            replyLeads,
            prefer: byNamed,
            budget: Math.min(leading ? LEAD_WORDS : OTHER_WORDS, ANSWER_WORDS - words),
            // The answer's first sentence is taken however long; later ones only if they fit.
            room: leading ? Number.POSITIVE_INFINITY : ANSWER_WORDS - words,
          });
          if (taken.length === 0) continue;
          parts.push(taken);
          words += taken.reduce((sum, sentence) => sum + sentence.words, 0);
        }
        return { ordered, parts };
      };
      const composed = withLaterChange(compose(leadingFirst), compose, own, relevance);
      const { ordered } = composed;
      const parts = asTimeline(composed.parts);
      const [leadPart] = composed.parts;
      const changePart = parts.find((part) => part[0]?.source === composed.change?.source);
      if (parts.length === 0) return notFound(unsaid);
      // "What did Tom propose…": Tom proposed, the others quoted said what they said.
      const questionVerb = reportingVerb(question);
      const verb = (speaker: string) => (named.size === 0 || named.has(speaker) ? questionVerb : 'said');
      // How the sources write a word tells a name from a capital that opens a sentence.
      const voice = {
        verb,
        listedTasks: tasksListed(sentences),
        ...sourceWords(
          sentences.map((sentence) => sentence.text),
          names,
        ),
      };

      // One citation per source: it opens where the answer starts quoting it, and quotes, verbatim,
      // what the answer takes from that turn (the answer may run on into the next turns).
      const citations: Citation[] = parts.map((taken) => {
        const first = taken[0] as Sentence;
        return citationOf(
          first,
          taken.at(-1) as Sentence,
          taken.filter((sentence) => sentence.turn === first.turn),
        );
      });
      // Sources the answer had no room for are still where the question is discussed: "see also",
      // each at its sentence that best answers.
      const quoted = new Set(parts.map((taken) => taken[0]?.source));
      const furtherLeads = ordered.flatMap((source) => {
        if (quoted.has(source)) return [];
        const said = own(source);
        const lead = leadFrom(bestSentence(said, relevance), usefulOf(said), replyLeads) ?? centreOf(said);
        return lead ? [lead] : [];
      });
      const further = furtherLeads.map((lead) => citationOf(lead, lead, [lead]));
      // Confidence is how much of the question the cited evidence says: the turns quoted from and
      // the sentences cited after "See also". "How long did the outage last?", answered "the
      // incident lasted forty-seven minutes" from a turn that opens "This is the retrospective for
      // the search outage", is answered, not a knowledge gap. So is "How was the outage
      // detected?", answered "got paged for the error rate" in the meeting whose title names the
      // outage: a source that answers the question's kind says its matter by its title too.
      const quotedTurns = new Set(
        parts.flat().map((sentence) => `${sentence.source.number}:${sentence.turn}`),
      );
      const evidence = [
        ...sentences.filter((sentence) => quotedTurns.has(`${sentence.source.number}:${sentence.turn}`)),
        ...furtherLeads,
      ];
      // A source answering the question's kind says what the kind's own words ask ("measure" in
      // "What does the experiment measure?", answered "success means…").
      const said = new Set([
        ...evidence.flatMap((sentence) => [...sentence.lexemes]),
        ...(answering ? [...(titleWords.get(answering.videoTitle) ?? []), ...light] : []),
        // Quoted from the part asked about, the answer says where it was said.
        ...partWords,
      ]);
      const covered = [...ownWeight].reduce(
        (sum, [lexeme, value]) => sum + (said.has(lexeme) ? value : 0),
        0,
      );
      const seeAlso =
        further.length > 0
          ? ` See also ${further.map((citation) => `[${citation.source}]`).join(', ')}.`
          : '';
      // Sources from meetings held on different days: each part that opens a meeting says when it
      // was held, even when the others are only cited after "See also".
      const meetingDates = ordered.map((source) => source.recordedAt);
      const day = spansDays(meetingDates) ? dayWriter(meetingDates) : undefined;
      const opensMeeting = (at: number) =>
        parts[at]?.[0]?.source.videoId !== parts[at - 1]?.[0]?.source.videoId;
      // The decision the answer leads with says at once that it did not last, and where it changed,
      // when other parts of its meeting come between: a reader who stops after the first sentence
      // is not left with a date since replaced.
      const changeFollows =
        changePart && parts.indexOf(changePart) === parts.indexOf(leadPart as Sentence[]) + 1;
      const changed =
        day && changePart && !changeFollows
          ? ` That changed on ${day(meetingOf(changePart))}. [${changePart[0]?.source.number}]`
          : '';
      return {
        answer:
          (unsaid.length > 0 ? `${unmentioned(unsaid)} ` : '') +
          parts
            .map(
              (taken, at) =>
                written(
                  taken,
                  parts[at - 1]?.at(-1)?.speaker ?? null,
                  voice,
                  day && opensMeeting(at) ? day(meetingOf(taken)) : undefined,
                ) + (taken === leadPart ? changed : ''),
            )
            .join(' ') +
          seeAlso,
        citations: [...citations, ...further],
        answered: true,
        confidence: total === 0 ? 0 : Math.round((covered / total) * 1000) / 1000,
      };
    },
  };
}
