import type { Source } from './engine.ts';
import { asks, isCourtesy } from './sentences.ts';

/**
 * Which sentences of a source an answer takes (local-engine.ts): where it starts — the sentence
 * that best answers, of the kind asked for, said by whom the question names, or the reply to it —
 * and how far it runs.
 */

/** A sentence with fewer stemmed words than this is filler ("Yeah, okay, so.", "Um. But we'll skip that."). */
const MIN_LEXEMES = 2;
/**
 * A chair turning to the next item ("Now the onboarding checklist.", "Last item, the budget."):
 * it names the matter and says nothing of it, so what is said next leads.
 */
const ANNOUNCES_ITEM =
  /^(?:(?:and |so |okay,? )?(?:now|next|finally)|(?:the )?(?:last|next|first|final) (?:item|point|topic)|moving on to|on to)\b[,:]?\s+(?!(?:\w+\s+){0,4}(?:is|are|was|were|be|do|does|did|has|have|had|will|would|can|could|should|must|may|might|need|needs|want|wants|think|we|i|you|they|it)\b)(?:\w+\s+){0,3}\w+[.!]?$/i;

export type Sentence = {
  source: Source;
  turn: number;
  speaker: string | null;
  start: number;
  end: number;
  /** Verbatim, as a citation quotes it. */
  text: string;
  /** As the answer writes it (tidySpeech). */
  said: string;
  words: number;
  lexemes: Set<string>;
};

/**
 * What a source gives the answer: the sentence that best answers — in the turn the source is
 * centred on when it holds one; for a question of a kind, the first that answers its kind (a
 * cause for a "why", a decision for "what did we decide") — when it has at most `room` words,
 * then the sentences said after it while they fit in `budget` words (the rest of its turn, and
 * later turns while they hold a word of the question); filler is skipped.
 */
export function excerpt(
  sentences: Sentence[],
  relevance: (sentence: Sentence) => number,
  {
    answersKind,
    kindRelevance,
    kindOnly = false,
    startAt,
    budget,
    room,
    replyLeads,
    prefer,
  }: {
    answersKind?: (sentence: Sentence) => boolean;
    /** Whether a source none of whose sentences answers the kind gives nothing. */
    kindOnly?: boolean;
    /** Sentences that lead before others that answer as well or better (said by whom the question names). */
    prefer?: (sentence: Sentence) => boolean;
    /**
     * Which of the sentences answering the kind leads, for a kind that names its matter: the best
     * (in the centre turn when it holds one, as for any question); otherwise the first.
     */
    kindRelevance?: (sentence: Sentence) => number;
    /** The sentence to start from, when the caller has chosen it. */
    startAt?: Sentence;
    budget: number;
    room: number;
    replyLeads: (reply: Sentence) => boolean;
  },
) {
  const useful = usefulOf(sentences);
  const kindAnswer = !answersKind
    ? undefined
    : kindRelevance
      ? firstOfBest(centredFirst(useful.filter(answersKind)), kindRelevance)
      : useful.find(answersKind);
  if (kindOnly && !kindAnswer && !startAt) return [];
  const best = kindAnswer ?? bestSentence(sentences, relevance, prefer);
  // What the person the question names asked is what they said: no reply leads before it.
  const chosen = startAt ?? (best && prefer?.(best) ? best : leadFrom(best, useful, replyLeads));
  const next = chosen && useful[useful.indexOf(chosen) + 1];
  const lead =
    chosen && !startAt && ANNOUNCES_ITEM.test(chosen.text.trim()) && next?.turn === chosen.turn
      ? next
      : chosen;
  if (!lead || lead.words > room) return [];
  const taken = [lead];
  let words = lead.words;
  for (const sentence of useful.slice(useful.indexOf(lead) + 1)) {
    // The lead's turn goes on as said; another turn joins when it speaks to the question, or
    // replies to the question the answer quotes last ("Which provider do you use?" — "Okta.").
    const last = taken.at(-1) as Sentence;
    const replies = asks(last.text) && sentence.speaker !== last.speaker && sentence.turn - last.turn <= 2;
    if (sentence.turn !== lead.turn && relevance(sentence) === 0 && !replies) break;
    if (words + sentence.words > budget) break;
    taken.push(sentence);
    words += sentence.words;
  }
  // A question that hands the floor on ("Daniel, is that realistic?", "Who would like to go
  // first?") and says nothing asked about is left out when the excerpt ends on it: its reply had
  // no room. A longer question says what was asked in the meeting, and stays.
  while (taken.length > 1 && handsOn(taken.at(-1) as Sentence) && relevance(taken.at(-1) as Sentence) === 0)
    taken.pop();
  return taken;
}

/** Someone addressed by name, then asked: "Daniel, is that realistic?". */
const ADDRESSED =
  /^\p{Lu}\p{L}*,\s+(?:is|are|was|were|can|could|do|does|did|will|would|should|have|has|what|how|when|who|why|any)\b/u;
/** A question this short asks for a turn, not about a matter ("Did any Member object?"). */
const HANDING_ON_WORDS = 6;
const handsOn = (sentence: Sentence) =>
  asks(sentence.text) && (sentence.words <= HANDING_ON_WORDS || ADDRESSED.test(sentence.said));

/** The first of the sentences `score` ranks highest. */
const firstOfBest = (sentences: Sentence[], score: (sentence: Sentence) => number) =>
  sentences.reduce<Sentence | undefined>(
    (best, sentence) => (!best || score(sentence) > score(best) ? sentence : best),
    undefined,
  );

/** The sentences that say something: filler ("Yeah, okay, so.") and courtesies are never quoted. */
export const usefulOf = (sentences: Sentence[]) =>
  sentences.filter((sentence) => sentence.lexemes.size >= MIN_LEXEMES && !isCourtesy(sentence.said));

/**
 * Where a source's answer starts: at `best`, unless it asks something and ends its turn and the
 * reply speaks to the question too. A question restates the topic in the words asked about, but
 * "What did the witness say about X" is answered by the witness, not by the member asking. The
 * reply is the next turn that says something, by another speaker, within two turns; it leads when
 * `replyLeads` holds ("That would be funny." is a reaction: the question that prompted it says more).
 */
export function leadFrom(
  best: Sentence | undefined,
  useful: Sentence[],
  replyLeads: (reply: Sentence) => boolean,
): Sentence | undefined {
  if (!best || !asks(best.text)) return best;
  const next = useful[useful.indexOf(best) + 1];
  const replied = next && next.turn !== best.turn && next.turn - best.turn <= 2;
  return replied && next.speaker !== best.speaker && replyLeads(next) ? next : best;
}

/** Of a source's `sentences`, those of the turn it is centred on when that turn holds one; else all. */
function centredFirst(sentences: Sentence[]) {
  const centre = sentences[0]?.source.bestSegmentIndex;
  const inCentre = sentences.filter((sentence) => sentence.turn === centre);
  return inCentre.length > 0 ? inCentre : sentences;
}

/**
 * A source's sentence that best answers, in the turn it is centred on when that turn holds one; of
 * the `prefer`red ones when any answers.
 */
export function bestSentence(
  sentences: Sentence[],
  relevance: (sentence: Sentence) => number,
  prefer?: (sentence: Sentence) => boolean,
) {
  const answering = usefulOf(sentences).filter((sentence) => relevance(sentence) > 0);
  const preferred = prefer ? answering.filter(prefer) : [];
  return firstOfBest(centredFirst(preferred.length > 0 ? preferred : answering), relevance);
}

/**
 * Where to cite a source none of whose sentences says a content word of the question: retrieval
 * chose it for its neighbours' words (its centre turn may hold only a framing word such as
 * "think", or hold the word in filler), so it is still cited, at the turn it is centred on.
 */
export function centreOf(sentences: Sentence[]): Sentence | undefined {
  const centre = sentences[0]?.source.bestSegmentIndex;
  const inCentre = sentences.filter((sentence) => sentence.turn === centre);
  return usefulOf(inCentre)[0] ?? inCentre[0] ?? usefulOf(sentences)[0];
}
