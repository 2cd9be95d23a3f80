import { durationToSeconds } from '../../lib/duration.ts';
import { roundTime, type Segment, TranscriptSyntaxError } from './segment.ts';

/**
 * Untimed text is given times from its length: people speak about 150 words a minute, so a segment
 * lasts 0.4 s per word, segments follow each other without gaps, and when the video's duration is
 * known every time is scaled so that the transcript spans exactly the video.
 */
export const WORDS_PER_MINUTE = 150;
/** Plain text is cut into segments of whole sentences, about this many words each. */
const PLAIN_SEGMENT_WORDS = 40;
/** Below this many seconds per segment, a duration is too short to be the length of this transcript. */
const MIN_SCALED_SECONDS = 0.05;

type Unnumbered = Omit<Segment, 'index'>;
export type Turn = { speaker: string | null; text: string; at: number | null; line: number };

/**
 * `Alice: …`, `[00:01:02] Alice: …` or `00:01:02 Alice: …`. A name is a short run of words (up to
 * four, starting with a letter), so prose such as "The plan is: …" is not read as a speaker.
 */
const LABEL =
  /^(?:\[?(\d{1,2}(?::\d{2}){1,2}(?:\.\d{1,3})?)\]?[ \t]+)?(\p{L}[\p{L}\p{M}\p{N}'’.\- ]{0,59}?)[ \t]*:(?:[ \t]+(.*))?$/u;
const MAX_NAME_WORDS = 4;

export function splitLabel(line: string): { at: number | null; speaker: string; text: string } | null {
  const match = LABEL.exec(line.trim());
  if (!match) return null;
  const speaker = (match[2] as string).replace(/\s+/g, ' ').trim();
  if (speaker.split(' ').length > MAX_NAME_WORDS) return null;
  const at = match[1] === undefined ? null : durationToSeconds(match[1]);
  return { at, speaker, text: (match[3] ?? '').trim() };
}

/** Collapses runs of spaces, trims each line and drops empty ones (a blank line would end a cue). */
export function cleanText(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

export const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * One segment per speaker turn; lines without a label continue the current turn. Times come from
 * the turns' timestamps when every turn has one (a turn lasts until the next starts), otherwise
 * they are synthesized.
 */
export function parseLabelledText(lines: string[], durationSeconds: number | null): Unnumbered[] {
  const turns: Turn[] = [];
  let current: Turn | null = null;
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const label = splitLabel(line);
    if (label) {
      current = { speaker: label.speaker, text: label.text, at: label.at, line: index + 1 };
      turns.push(current);
    } else if (current) {
      current.text = current.text ? `${current.text}\n${line}` : line;
    } else {
      current = { speaker: null, text: line, at: null, line: index + 1 };
      turns.push(current);
    }
  });
  const spoken = turns
    .map((turn) => ({ ...turn, text: cleanText(turn.text) }))
    .filter((turn) => turn.text.length > 0);
  if (spoken.length > 0 && spoken.every((turn) => turn.at !== null))
    return timedTurns(spoken, durationSeconds);
  return synthesizeTimes(spoken, durationSeconds);
}

/**
 * Turns that each carry their start (`at`), in order: a turn lasts until the next starts, the last
 * as long as its words take to say (within the duration, when known).
 */
export function timedTurns(turns: Turn[], durationSeconds: number | null): Unnumbered[] {
  return turns.map((turn, index) => {
    const start = turn.at as number;
    const previous = turns[index - 1];
    if (previous && start <= (previous.at as number)) {
      throw new TranscriptSyntaxError(turn.line, 'the timestamp is not later than the previous turn');
    }
    const next = turns[index + 1];
    const spoken = start + (wordCount(turn.text) * 60) / WORDS_PER_MINUTE;
    const end = next
      ? (next.at as number)
      : durationSeconds !== null && durationSeconds > start
        ? Math.min(durationSeconds, spoken)
        : spoken;
    return { start: roundTime(start), end: roundTime(end), speaker: turn.speaker, text: turn.text };
  });
}

/** Paragraphs (blank-line separated) cut into runs of whole sentences of about 40 words. */
export function parsePlainText(lines: string[], durationSeconds: number | null): Unnumbered[] {
  const pieces: string[] = [];
  for (const paragraph of lines.join('\n').split(/\n[ \t]*\n/)) {
    const sentences = paragraph
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?…])\s+/)
      .filter(Boolean);
    let piece: string[] = [];
    for (const sentence of sentences) {
      if (piece.length > 0 && wordCount(piece.join(' ')) + wordCount(sentence) > PLAIN_SEGMENT_WORDS) {
        pieces.push(piece.join(' '));
        piece = [];
      }
      piece.push(sentence);
    }
    if (piece.length > 0) pieces.push(piece.join(' '));
  }
  return synthesizeTimes(
    pieces.map((text) => ({ speaker: null, text })),
    durationSeconds,
  );
}

function synthesizeTimes(
  turns: Array<{ speaker: string | null; text: string }>,
  durationSeconds: number | null,
): Unnumbered[] {
  const lengths = turns.map((turn) => (Math.max(1, wordCount(turn.text)) * 60) / WORDS_PER_MINUTE);
  const total = lengths.reduce((sum, length) => sum + length, 0);
  const fits = durationSeconds !== null && durationSeconds / turns.length >= MIN_SCALED_SECONDS;
  const scale = fits ? (durationSeconds as number) / total : 1;
  let elapsed = 0;
  return turns.map((turn, index) => {
    const start = roundTime(elapsed * scale);
    elapsed += lengths[index] as number;
    return { start, end: roundTime(elapsed * scale), speaker: turn.speaker, text: turn.text };
  });
}
