import { parseText, parseVTTTimestamp, tokenizeVTTCue, type VTTCue, type VTTNode } from 'media-captions';
import { cleanText, parseLabelledText, parsePlainText, splitLabel } from './parse-text.ts';
import { roundTime, type Segment, TranscriptSyntaxError } from './segment.ts';

export const TRANSCRIPT_FORMATS = ['vtt', 'srt', 'labelled', 'plain'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Content types of transcript files and the format each announces (text/plain: detect it). */
export const TRANSCRIPT_CONTENT_TYPES: Record<string, TranscriptFormat | undefined> = {
  'text/plain': undefined,
  'text/vtt': 'vtt',
  'application/x-subrip': 'srt',
};

export type ParseOptions = {
  /** Skip detection (a client that sent `text/vtt` means VTT, even without a header). */
  format?: TranscriptFormat;
  /** The video's length, when known: untimed text is spread over it. */
  durationSeconds?: number | null;
};

const BOM = '\uFEFF';
const LINE_BREAK = /\r\n|\r|\n/;
const VTT_HEADER = /^WEBVTT(?:[ \t]|$)/;
const CUE_INDEX = /^\d+$/;
const TIMING = /^(\S+)[ \t]+-->[ \t]+(\S+)/;
/** How many lines detection looks at: enough to judge, cheap on a 25 MiB upload. */
const DETECTION_LINES = 400;

const splitLines = (text: string) => (text.startsWith(BOM) ? text.slice(1) : text).split(LINE_BREAK);

/** Which of the formats of API.md §4 a transcript is written in. */
export function detectFormat(text: string): TranscriptFormat {
  const lines = splitLines(text.slice(0, 200_000)).slice(0, DETECTION_LINES);
  const content = lines.map((line) => line.trim()).filter(Boolean);
  const [first = '', second = ''] = content;
  if (VTT_HEADER.test(first)) return 'vtt';
  if (first.includes('-->') || (CUE_INDEX.test(first) && second.includes('-->'))) return 'srt';
  const labelled = content.filter((line) => splitLabel(line) !== null).length;
  // A stray "Note: …" in prose is not a conversation: most lines of a labelled transcript are turns.
  if (labelled > 0 && labelled >= content.length * 0.3 && (labelled >= 2 || content.length === 1)) {
    return 'labelled';
  }
  return 'plain';
}

/** Detects (unless told) and parses a transcript into numbered, timed segments. */
export async function parseTranscript(
  text: string,
  options: ParseOptions = {},
): Promise<{ format: TranscriptFormat; segments: Segment[] }> {
  const format = options.format ?? detectFormat(text);
  const lines = splitLines(text).map((line) => line.trimEnd());
  const parsed =
    format === 'vtt' || format === 'srt'
      ? await parseCaptions(lines, format)
      : format === 'labelled'
        ? parseLabelledText(lines, options.durationSeconds ?? null)
        : parsePlainText(lines, options.durationSeconds ?? null);
  return { format, segments: parsed.map((segment, index) => ({ ...segment, index })) };
}

type Unnumbered = Omit<Segment, 'index'>;

/**
 * WebVTT and SRT through media-captions, which parses timings, settings and cue text (tags,
 * entities, voices). It skips what it cannot read without saying so, so the structure is checked
 * here first: every cue block needs a valid timing line, in order.
 */
async function parseCaptions(lines: string[], format: 'vtt' | 'srt'): Promise<Unnumbered[]> {
  validateCaptions(lines, format);
  const { cues } = await parseText(lines.join('\n'), { type: format });
  const segments: Unnumbered[] = [];
  for (const cue of cues) {
    const segment = cueToSegment(cue);
    if (segment) segments.push(segment);
  }
  return segments;
}

function validateCaptions(lines: string[], format: 'vtt' | 'srt') {
  let lineNumber = 0;
  if (format === 'vtt') {
    if (!VTT_HEADER.test(lines[0] ?? '')) throw new TranscriptSyntaxError(1, 'missing the WEBVTT header');
    // The header block runs to the first blank line.
    while (lineNumber < lines.length && lines[lineNumber] !== '') lineNumber++;
  }
  let previousStart = 0;
  while (lineNumber < lines.length) {
    if (lines[lineNumber] === '') {
      lineNumber++;
      continue;
    }
    const block: number[] = [];
    while (lineNumber < lines.length && lines[lineNumber] !== '') block.push(lineNumber++);
    const head = lines[block[0] as number] as string;
    if (format === 'vtt' && /^(?:NOTE|STYLE|REGION)(?:[ \t]|$)/.test(head)) continue;
    const timingAt = block.slice(0, 2).find((index) => (lines[index] as string).includes('-->'));
    if (timingAt === undefined) {
      const example = format === 'vtt' ? '00:00:01.000 --> 00:00:04.000' : '00:00:01,000 --> 00:00:04,000';
      throw new TranscriptSyntaxError((block[0] as number) + 1, `expected a cue timing line like ${example}`);
    }
    const start = checkTiming(lines[timingAt] as string, timingAt + 1, format, previousStart);
    previousStart = start;
  }
}

function checkTiming(line: string, lineNumber: number, format: 'vtt' | 'srt', previousStart: number) {
  const match = TIMING.exec(line.trim());
  if (!match) throw new TranscriptSyntaxError(lineNumber, 'malformed cue timing line');
  const toSeconds = (value: string) =>
    parseVTTTimestamp(format === 'srt' ? value.replace(',', '.') : value) as number | null;
  const [start, end] = [toSeconds(match[1] as string), toSeconds(match[2] as string)];
  if (start === null) throw new TranscriptSyntaxError(lineNumber, `invalid cue start time "${match[1]}"`);
  if (end === null) throw new TranscriptSyntaxError(lineNumber, `invalid cue end time "${match[2]}"`);
  if (end <= start) throw new TranscriptSyntaxError(lineNumber, 'the cue ends before it starts');
  if (start < previousStart) {
    throw new TranscriptSyntaxError(lineNumber, 'the cue starts before the previous cue');
  }
  return start;
}

/**
 * The speaker is the cue's first `<v>` voice; without one, a "Name: " prefix (how SRT and many
 * meeting tools write speakers). Markup is dropped and entities decoded by the tokenizer.
 */
function cueToSegment(cue: VTTCue): Unnumbered | null {
  const nodes = tokenizeVTTCue(cue);
  let text = cleanText(nodes.map(textOf).join(''));
  let speaker = firstVoice(nodes);
  if (speaker === null) {
    const label = splitLabel(text.split('\n')[0] as string);
    if (label?.text) {
      speaker = label.speaker;
      text = [label.text, ...text.split('\n').slice(1)].join('\n');
    }
  }
  if (!text) return null;
  return { start: roundTime(cue.startTime), end: roundTime(cue.endTime), speaker, text };
}

function textOf(node: VTTNode): string {
  return node.type === 'text' ? node.data : node.children.map(textOf).join('');
}

function firstVoice(nodes: VTTNode[]): string | null {
  for (const node of nodes) {
    if (node.type === 'text') continue;
    if (node.type === 'v') return cleanText(node.voice).replace(/\n/g, ' ') || null;
    const inner = firstVoice(node.children);
    if (inner) return inner;
  }
  return null;
}
