import { durationToSeconds } from '../../lib/duration.ts';
import { truncate } from '../../lib/text.ts';
import { toVtt } from '../transcripts/format.ts';
import { detectFormat, parseTranscript } from '../transcripts/parse.ts';
import {
  cleanText,
  splitLabel,
  type Turn,
  timedTurns,
  WORDS_PER_MINUTE,
  wordCount,
} from '../transcripts/parse-text.ts';
import { roundTime, type Segment, TranscriptSyntaxError } from '../transcripts/segment.ts';
import { parseJsonSegments } from './json-segments.ts';

/**
 * The transcript files an import reads: the formats of the transcript parser (WebVTT — Zoom's
 * cloud-recording transcript among them, its "Name: " cue prefixes read as speakers — SRT,
 * speaker-labelled and plain text) and three more: JSON segments, Zoom's `.txt` transcript and
 * Google Meet's transcript export.
 */
export const IMPORT_FORMATS = ['vtt', 'srt', 'labelled', 'plain', 'json', 'zoom-txt', 'google-meet'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Formats the video keeps as they were sent; the others are kept as the WebVTT they are read into. */
const KEPT_AS_SENT = new Set<ImportFormat>(['vtt', 'srt', 'labelled', 'plain']);

/** Extensions taken, and the format each fixes; `.txt` and none: detected from the text. */
const FORMAT_OF_EXTENSION = new Map<string, ImportFormat | null>([
  ['vtt', 'vtt'],
  ['srt', 'srt'],
  ['json', 'json'],
  ['txt', null],
  ['', null],
]);

export const TITLE_MAX = 500;

export type FailedFile = { ok: false; format: ImportFormat | null; error: string; line: number | null };
export type ParsedFile = {
  ok: true;
  format: ImportFormat;
  title: string;
  /** What the video keeps as its transcript. */
  transcript: string;
  segments: Segment[];
  /** Where the last segment ends. */
  durationSeconds: number;
};

type Unnumbered = Omit<Segment, 'index'>;

const LINE_BREAK = /\r\n|\r|\n/;
/** `[Speaker Name] 00:01:02`: the head of a turn in Zoom's `.txt` transcript. */
const ZOOM_HEAD = /^\[([^\]]+)\][ \t]+(\d[\d:.,]*)$/;
/** A line that is only a time: how Google Meet's export marks the blocks of turns. */
const CLOCK_LINE = /^\d{1,2}:\d{2}:\d{2}$/;
/** Meet's last line of the transcript proper (its notice about the transcript follows). */
const MEET_END = /^Transcription ended after (\S+)$/i;
const MEET_TITLE_SUFFIX = /\s+-\s+Transcript$/i;
/** The first line of JSON segments: an object, or an array (not `[00:01:02] Name: …`). */
const JSON_START = /^(?:\{|\[\s*(?:[{\]]|$))/;
const DETECTION_LINES = 400;

/** The file's name without its folders (inside a zip) or extension. */
const baseName = (name: string) => name.split('/').pop() as string;

function extensionOf(name: string) {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function titleOf(name: string) {
  const base = baseName(name);
  const dot = base.lastIndexOf('.');
  return truncate((dot > 0 ? base.slice(0, dot) : base).trim() || name, TITLE_MAX);
}

const lineAt = (text: string, offset: number) => text.slice(0, offset).split(LINE_BREAK).length;

const decodes = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The line holding the first byte sequence that is not UTF-8 (a line feed is never inside one). */
function lineOfInvalidUtf8(bytes: Uint8Array): number {
  let start = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0 || !decodes(bytes.subarray(start, end))) return line;
    start = end + 1;
  }
}

/**
 * A file's text, or why it cannot be one: a type that is not a transcript, bytes that are not
 * UTF-8, or a NUL character (no text column keeps it). Decided when the import is accepted, since
 * such a file cannot be stored to wait for its turn.
 */
export function decodeFile(name: string, bytes: Uint8Array): { ok: true; text: string } | FailedFile {
  const extension = extensionOf(name);
  if (!FORMAT_OF_EXTENSION.has(extension)) {
    return {
      ok: false,
      format: null,
      error: `unsupported file type ".${extension}": send .vtt, .srt, .txt or .json files, or a .zip of them`,
      line: null,
    };
  }
  if (!decodes(bytes)) {
    return { ok: false, format: null, error: 'not UTF-8 text', line: lineOfInvalidUtf8(bytes) };
  }
  const text = new TextDecoder('utf-8').decode(bytes);
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    return { ok: false, format: null, error: 'contains a NUL character', line: lineAt(text, nul) };
  return { ok: true, text };
}

/** Which format a text whose extension does not say is written in. */
export function detectImportFormat(text: string): ImportFormat {
  const content = text
    .slice(0, 200_000)
    .split(LINE_BREAK)
    .slice(0, DETECTION_LINES)
    .map((line) => line.trim())
    .filter(Boolean);
  const first = content[0] ?? '';
  if (JSON_START.test(first)) return 'json';
  if (ZOOM_HEAD.test(first)) return 'zoom-txt';
  const native = detectFormat(text);
  if (native === 'vtt' || native === 'srt') return native;
  const clockAt = content.findIndex((line) => CLOCK_LINE.test(line));
  if (clockAt >= 0 && splitLabel(content[clockAt + 1] ?? '') !== null) return 'google-meet';
  return native;
}

/** Reads a file (its format fixed by its extension, else detected) into timed segments, or says where it fails. */
export async function parseImportFile(name: string, text: string): Promise<ParsedFile | FailedFile> {
  if (!text.trim()) return { ok: false, format: null, error: 'the file is empty', line: null };
  const format = FORMAT_OF_EXTENSION.get(extensionOf(name)) ?? detectImportFormat(text);
  let read: { title: string | null; segments: Unnumbered[] };
  try {
    read = await readAs(format, text);
  } catch (error) {
    if (!(error instanceof TranscriptSyntaxError)) throw error;
    return { ok: false, format, error: error.message, line: error.line };
  }
  if (read.segments.length === 0) {
    return { ok: false, format, error: 'no transcript text found', line: null };
  }
  const segments = read.segments.map((segment, index) => ({ ...segment, index }));
  return {
    ok: true,
    format,
    title: read.title ? truncate(read.title, TITLE_MAX) : titleOf(name),
    transcript: KEPT_AS_SENT.has(format) ? text : toVtt(segments),
    segments,
    durationSeconds: segments.reduce((latest, segment) => Math.max(latest, segment.end), 0),
  };
}

async function readAs(format: ImportFormat, text: string) {
  switch (format) {
    case 'json':
      return { title: null, segments: parseJsonSegments(text) };
    case 'zoom-txt':
      return { title: null, segments: parseZoomText(text.split(LINE_BREAK)) };
    case 'google-meet':
      return parseMeetText(text.split(LINE_BREAK));
    default:
      return { title: null, segments: (await parseTranscript(text, { format })).segments };
  }
}

function clockTime(value: string, line: number): number {
  const seconds = durationToSeconds(value);
  if (seconds === null) throw new TranscriptSyntaxError(line, `invalid timestamp "${value}"`);
  return seconds;
}

const speakerName = (name: string) => cleanText(name).replace(/\n/g, ' ') || null;

/** `[Speaker Name] HH:MM:SS` heads each turn, its text on the lines below. */
function parseZoomText(lines: string[]): Unnumbered[] {
  const turns: Turn[] = [];
  lines.forEach((line, index) => {
    const head = ZOOM_HEAD.exec(line.trim());
    if (head) {
      const at = clockTime(head[2] as string, index + 1);
      turns.push({ speaker: speakerName(head[1] as string), at, text: '', line: index + 1 });
      return;
    }
    const turn = turns.at(-1);
    if (turn && line.trim()) turn.text = `${turn.text}\n${line}`;
  });
  const spoken = turns.map((turn) => ({ ...turn, text: cleanText(turn.text) })).filter((turn) => turn.text);
  return timedTurns(spoken, null);
}

type MeetBlock = { at: number; turns: Array<{ speaker: string | null; text: string }> };

/**
 * Google Meet's transcript export: a title line (and attendees) before the first time line, then
 * blocks — a time line, `Speaker Name: text` lines — until "Transcription ended after …". The turns
 * of a block share its span, until the next block (or that end), by their number of words.
 */
function parseMeetText(lines: string[]): { title: string | null; segments: Unnumbered[] } {
  const firstClock = lines.findIndex((line) => CLOCK_LINE.test(line.trim()));
  const title = lines.slice(0, firstClock).find((line) => line.trim());
  const blocks: MeetBlock[] = [];
  let endAt: number | null = null;
  let speaker: string | null = null;
  for (let index = firstClock; index < lines.length; index++) {
    const line = (lines[index] as string).trim();
    const ended = MEET_END.exec(line);
    if (ended) {
      endAt = durationToSeconds(ended[1] as string);
      break;
    }
    if (CLOCK_LINE.test(line)) {
      const at = clockTime(line, index + 1);
      const previous = blocks.at(-1);
      if (previous && at <= previous.at) {
        throw new TranscriptSyntaxError(index + 1, 'the timestamp is not later than the previous one');
      }
      blocks.push({ at, turns: [] });
    } else if (line) {
      const block = blocks.at(-1) as MeetBlock;
      const label = splitLabel(line);
      const turn = block.turns.at(-1);
      if (label) {
        speaker = label.speaker;
        block.turns.push({ speaker, text: label.text });
      } else if (turn) turn.text = `${turn.text}\n${line}`;
      // A block opening without a label: the speaker of the block before goes on.
      else block.turns.push({ speaker, text: line });
    }
  }
  const segments = blocks.flatMap((block, index) => {
    const next = blocks[index + 1];
    return spreadTurns(block, next ? next.at : endAt);
  });
  return { title: title ? title.trim().replace(MEET_TITLE_SUFFIX, '') : null, segments };
}

function spreadTurns(block: MeetBlock, until: number | null): Unnumbered[] {
  const turns = block.turns
    .map((turn) => ({ speaker: turn.speaker, text: cleanText(turn.text) }))
    .filter((turn) => turn.text);
  const words = turns.map((turn) => Math.max(1, wordCount(turn.text)));
  const total = words.reduce((sum, count) => sum + count, 0);
  const end = until !== null && until > block.at ? until : block.at + (total * 60) / WORDS_PER_MINUTE;
  let said = 0;
  return turns.map((turn, index) => {
    const start = block.at + ((end - block.at) * said) / total;
    said += words[index] as number;
    return {
      start: roundTime(start),
      end: roundTime(block.at + ((end - block.at) * said) / total),
      speaker: turn.speaker,
      text: turn.text,
    };
  });
}
