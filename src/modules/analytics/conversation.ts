import { PROCEDURAL_QUESTIONS, QUESTION_TAGS } from '../knowledge/nlp/cues.ts';

/**
 * Conversation metrics of one meeting, per speaker, from its timed segments in transcript order
 * (docs/analytics.md has each formula with a worked example). Pure: stored per video when the
 * transcript is stored, summed over meetings when asked for.
 */

export type StatSegment = { start: number; end: number; speakerId: string | null; text: string };

export type SpeakerStats = {
  /** Seconds of the speaker's own segments (silence between segments is nobody's). */
  talkSeconds: number;
  wordCount: number;
  /** Turns: maximal runs of the speaker's consecutive segments. Each turn is a monologue. */
  turns: number;
  longestMonologueSeconds: number;
  /** Sum of the turns' lengths (first segment's start to last segment's end): average = this / turns. */
  monologueSeconds: number;
  questionCount: number;
  /** Turns that start before the previous speaker's segment ended. */
  interruptions: number;
  /** Sum and count of the pauses before the speaker answers another (turns that do not interrupt). */
  patienceSeconds: number;
  patienceCount: number;
};

/** A real question: ends with "?", six words or more, no tag on a statement, not running the meeting. */
const MIN_QUESTION_WORDS = 6;

const words = (text: string) => text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));

/** The questions a segment asks, by the rules of the knowledge extraction's question detector. */
export function questionsIn(text: string): number {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter(
      (sentence) =>
        sentence.endsWith('?') &&
        words(sentence).length >= MIN_QUESTION_WORDS &&
        !QUESTION_TAGS.test(sentence) &&
        !PROCEDURAL_QUESTIONS.some((pattern) => pattern.test(sentence)),
    ).length;
}

const empty = (): SpeakerStats => ({
  talkSeconds: 0,
  wordCount: 0,
  turns: 0,
  longestMonologueSeconds: 0,
  monologueSeconds: 0,
  questionCount: 0,
  interruptions: 0,
  patienceSeconds: 0,
  patienceCount: 0,
});

/**
 * Per speaker of the meeting. Segments without a speaker count for nobody, but they end the turn
 * before them and are "another speaker" for the turn after.
 */
export function conversationStats(segments: StatSegment[]): Map<string, SpeakerStats> {
  const bySpeaker = new Map<string, SpeakerStats>();
  const statsOf = (speakerId: string) => {
    const known = bySpeaker.get(speakerId);
    if (known) return known;
    const stats = empty();
    bySpeaker.set(speakerId, stats);
    return stats;
  };
  let turn: { speakerId: string; start: number; end: number } | null = null;
  const closeTurn = () => {
    if (!turn) return;
    const stats = statsOf(turn.speakerId);
    const length = Math.max(0, turn.end - turn.start);
    stats.monologueSeconds += length;
    stats.longestMonologueSeconds = Math.max(stats.longestMonologueSeconds, length);
    turn = null;
  };
  let previous: StatSegment | null = null;
  for (const segment of segments) {
    const { speakerId } = segment;
    if (speakerId === null) {
      closeTurn();
      previous = segment;
      continue;
    }
    const stats = statsOf(speakerId);
    stats.talkSeconds += Math.max(0, segment.end - segment.start);
    stats.wordCount += words(segment.text).length;
    stats.questionCount += questionsIn(segment.text);
    const sameTurn: boolean = turn !== null && previous?.speakerId === speakerId;
    if (sameTurn && turn) {
      turn.end = Math.max(turn.end, segment.end);
    } else {
      closeTurn();
      turn = { speakerId, start: segment.start, end: segment.end };
      stats.turns += 1;
      if (previous) {
        const pause = segment.start - previous.end;
        if (pause < 0) stats.interruptions += 1;
        else {
          stats.patienceSeconds += pause;
          stats.patienceCount += 1;
        }
      }
    }
    previous = segment;
  }
  closeTurn();
  return bySpeaker;
}
