/**
 * What the AI features ask of an engine. The default engine (`local`) works offline: retrieval
 * plus extractive answering over the transcripts; a model-backed engine implements the same
 * contract, so routes never know which one answered.
 */

import type { RetrievedChunk } from '../search/retrieval.ts';

/** A passage given to the engine (as retrieval found it), numbered from 1 in the order given (its citation number). */
export type Source = Omit<RetrievedChunk, 'index' | 'score'> & { number: number };

/** Where a claim comes from: a quote of a video's transcript and the seconds it was said. */
export type Citation = {
  /** The source's number. */
  source: number;
  videoId: string;
  videoTitle: string;
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

export type AnswerEngine = {
  readonly name: string;
  answer(input: { question: string; sources: Source[] }): Promise<EngineAnswer>;
  /**
   * The same answer, its text handed to `onToken` piece by piece as the model writes it (chat
   * streams them). Engines that write nothing incrementally leave it out; callers then use `answer`.
   */
  answerStream?(
    input: { question: string; sources: Source[] },
    onToken: (text: string) => void,
  ): Promise<EngineAnswer>;
  /** One vector per text, in order; only engines configured with an embedding model have it. */
  embed?(texts: string[]): Promise<number[][]>;
};

/** What an answer says when nothing the caller may read answers the question. */
export const NOT_FOUND_ANSWER =
  "I don't know: nothing in the recordings you can access answers this question.";
