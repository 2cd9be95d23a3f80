import type { MeetingPart } from '../search/meeting-parts.ts';
/**
 * What the AI features ask of an engine. The default engine (`local`) works offline: retrieval
 * plus extractive answering over the transcripts; a model-backed engine implements the same
 * contract, so routes never know which one answered.
 */

import type { RetrievedStretch } from '../search/stretch-retrieval.ts';

/** A stretch of a transcript given to the engine (as retrieval found it, best first), numbered from 1 in the order given. */
export type Source = Omit<RetrievedStretch, 'score'> & { number: number };

/** Where a claim comes from: a quote of a video's transcript and the seconds it was said. */
export type Citation = {
  /** The source's number. */
  source: number;
  videoId: string;
  videoTitle: string;
  /**
   * When its meeting was held (the recording date, else when the video was added), ISO 8601; null
   * only on an answer stored before citations carried it whose video has since been purged.
   */
  heldAt: string | null;
  start: number;
  end: number;
  speaker: string | null;
  /** Words of the transcript, verbatim. */
  quote: string;
};

export type EngineAnswer = {
  /** The answer; claims carry `[n]` markers that refer to `citations[].source`. */
  answer: string;
  /** False when the sources do not answer the question: the engine says so rather than guess. */
  answered: boolean;
  /** 0–1: how much of the question the cited material covers. */
  confidence: number;
  citations: Citation[];
};

/**
 * What an engine answers from: the question, the sources it may cite, and the person's earlier
 * questions when the question follows them in a conversation ("Who owns it?").
 */
export type AnswerInput = {
  question: string;
  sources: Source[];
  earlier?: string[];
  /**
   * Words of the question, as typed, that no recording the asker can access says: the sources
   * cannot be about them, and the answer says so before anything else.
   */
  unsaid?: string[];
  /**
   * The sources are the start or the end of their meeting that the question asks about ("the wrap
   * up of the meeting"): they answer by where they were said, whatever words they share with it.
   */
  part?: MeetingPart;
};

export type AnswerEngine = {
  readonly name: string;
  answer(input: AnswerInput): Promise<EngineAnswer>;
  /**
   * The same answer, its text handed to `onToken` piece by piece as the model writes it (chat
   * streams them). Engines that write nothing incrementally leave it out; callers then use `answer`.
   */
  answerStream?(input: AnswerInput, onToken: (text: string) => void): Promise<EngineAnswer>;
  /** One vector per text, in order; only engines configured with an embedding model have it. */
  embed?(texts: string[]): Promise<number[][]>;
};

/** What an answer says when nothing the caller may read answers the question. */
export const NOT_FOUND_ANSWER =
  "I don't know: nothing in the recordings you can access answers this question.";

const ANY_OF = new Intl.ListFormat('en', { type: 'disjunction' });

/** What an answer says first when the question names something no recording mentions. */
export const unmentioned = (unsaid: string[]) =>
  `No recording you can access mentions ${ANY_OF.format(unsaid.map((word) => `“${word}”`))}.`;

/** The "I don't know", saying which of the question's words no recording mentions when some are. */
export const notFoundAnswer = (unsaid: string[] = []) =>
  unsaid.length === 0 ? NOT_FOUND_ANSWER : `I don't know: ${unmentioned(unsaid).replace(/^N/, 'n')}`;

/** An answer that does not answer: nothing cited, with how much of the question was covered. */
export const notFound = (unsaid: string[] = [], confidence = 0): EngineAnswer => ({
  answer: notFoundAnswer(unsaid),
  answered: false,
  confidence,
  citations: [],
});

/** What an answer says when there is nothing to answer from: no transcript in the scope at all. */
export const NO_RECORDINGS_ANSWER =
  'There are no transcribed recordings here yet: add a video with a transcript (POST /videos, or PUT /videos/{id}/transcript) and ask again.';

/** `[1]`, `[2, 3]`: a group of citation markers. */
export const MARKERS = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** The source numbers a text's markers cite, in the order written (with repeats). */
export const citedIn = (text: string) =>
  [...text.matchAll(MARKERS)].flatMap((match) => (match[1] as string).split(',').map(Number));

/**
 * The answer with its sources numbered 1, 2, 3… in the order the answer first cites them, and
 * its citations in that order: a reader meets [1] first, whatever the engine numbered.
 */
export function numberedByAppearance(result: EngineAnswer): EngineAnswer {
  const renumber = new Map<number, number>();
  for (const number of citedIn(result.answer)) {
    if (!renumber.has(number)) renumber.set(number, renumber.size + 1);
  }
  for (const citation of result.citations) {
    if (!renumber.has(citation.source)) renumber.set(citation.source, renumber.size + 1);
  }
  const answer = result.answer.replace(
    MARKERS,
    (_, numbers: string) =>
      `[${numbers
        .split(',')
        .map((number) => renumber.get(Number(number)))
        .join(', ')}]`,
  );
  const citations = result.citations
    .map((citation) => ({ ...citation, source: renumber.get(citation.source) as number }))
    .sort((a, b) => a.source - b.source);
  return { ...result, answer, citations };
}
