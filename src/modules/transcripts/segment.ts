/** One subtitle cue or speaker turn; times in seconds (millisecond precision). */
export type Segment = { index: number; start: number; end: number; speaker: string | null; text: string };

/** A transcript that cannot be read, with the 1-based line that failed. */
export class TranscriptSyntaxError extends Error {
  readonly line: number;

  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}`);
    this.name = 'TranscriptSyntaxError';
    this.line = line;
  }
}

export const roundTime = (seconds: number) => Math.round(seconds * 1000) / 1000;
