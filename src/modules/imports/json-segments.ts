import { z } from 'zod';
import { unstorableTextPath } from '../../http/text-guard.ts';
import { cleanText } from '../transcripts/parse-text.ts';
import { roundTime, type Segment, TranscriptSyntaxError } from '../transcripts/segment.ts';

/**
 * Transcripts as JSON: an array of `{start, end, speaker?, text}` (seconds), or an object holding
 * it as `segments` — Whisper's `verbose_json`, whose other fields are ignored. Errors name the
 * line where the failing segment (or the syntax error) is.
 */

type Unnumbered = Omit<Segment, 'index'>;

const storable = (text: string) => unstorableTextPath(text, '') === null;
const UNSTORABLE = 'must not contain NUL characters or unpaired surrogates';

/** The latest time a segment may have, as clips and comments bound theirs (about 31 years). */
const MAX_SECONDS = 1_000_000_000;
const seconds = z.number().max(MAX_SECONDS, `must be at most ${MAX_SECONDS} (seconds)`);

const segmentInput = z
  .object({
    start: seconds.min(0, 'must be at least 0'),
    end: seconds,
    speaker: z.string().refine(storable, UNSTORABLE).nullable().optional(),
    text: z.string().refine(storable, UNSTORABLE),
  })
  .refine((segment) => segment.end > segment.start, { path: ['end'], message: 'must be after start' });

const SHAPE = 'expected an array of segments {start, end, speaker?, text}, or an object with "segments"';

export function parseJsonSegments(text: string): Unnumbered[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const reason = (error as Error).message.replace(/ in JSON at position.*$/, '');
    throw new TranscriptSyntaxError(scanJson(text).errorLine ?? 1, `invalid JSON: ${reason}`);
  }
  const wrapped = !Array.isArray(document);
  const items = wrapped ? (document as { segments?: unknown } | null)?.segments : document;
  if (!Array.isArray(items)) throw new TranscriptSyntaxError(1, SHAPE);
  const segments: Unnumbered[] = [];
  let previousStart = 0;
  const invalid = (index: number, field: string, reason: string) =>
    new TranscriptSyntaxError(
      scanJson(text).elementLines[index] ?? 1,
      `segment ${index + 1}${field ? `, ${field}` : ''}: ${reason}`,
    );
  for (const [index, item] of items.entries()) {
    const parsed = segmentInput.safeParse(item);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw invalid(index, issue?.path.join('.') ?? '', issue?.message ?? 'invalid');
    }
    const { start, end, speaker } = parsed.data;
    if (start < previousStart)
      throw invalid(index, 'start', 'must not be before the previous segment’s start');
    previousStart = start;
    const spoken = cleanText(parsed.data.text);
    if (!spoken) continue;
    const name = speaker ? cleanText(speaker).replace(/\n/g, ' ') : '';
    segments.push({ start: roundTime(start), end: roundTime(end), speaker: name || null, text: spoken });
  }
  return segments;
}

type Container = { array: boolean; holdsSegments: boolean };
type Expecting = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'next' | 'end';

const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const ESCAPABLE = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Where things are in a JSON text, which JSON.parse does not tell (its messages give a position
 * for some syntax errors only): the 1-based line of each segment — the elements of the top-level
 * array, or of the top-level object's "segments" — and the line of the first syntax error.
 * A single pass with an explicit stack, so that no nesting depth exhausts the call stack.
 */
export function scanJson(text: string): { elementLines: number[]; errorLine: number | null } {
  const elementLines: number[] = [];
  const stack: Container[] = [];
  let expecting: Expecting = 'value';
  let lastKey: string | null = null;
  let line = 1;
  let at = 0;

  /** The end of the string starting at `at` (its closing quote), or -1 when it is malformed. */
  const stringEnd = () => {
    for (let i = at + 1; i < text.length; i++) {
      const char = text[i] as string;
      if (char === '"') return i;
      if (char < ' ') return -1;
      if (char === '\\') {
        const next = text[i + 1] ?? '';
        if (next === 'u' && HEX4.test(text.slice(i + 2, i + 6))) i += 5;
        else if (ESCAPABLE.has(next)) i += 1;
        else return -1;
      }
    }
    return -1;
  };
  const afterValue = (): Expecting => (stack.length > 0 ? 'next' : 'end');

  for (; at < text.length; at++) {
    const char = text[at] as string;
    if (char === '\n') line++;
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') continue;
    const top = stack.at(-1);
    if ((expecting === 'value-or-close' && char === ']') || (expecting === 'key-or-close' && char === '}')) {
      stack.pop();
      expecting = afterValue();
    } else if (expecting === 'value' || expecting === 'value-or-close') {
      if (top?.holdsSegments) elementLines.push(line);
      if (char === '{' || char === '[') {
        const array = char === '[';
        const holdsSegments =
          array && (stack.length === 0 || (stack.length === 1 && !top?.array && lastKey === 'segments'));
        stack.push({ array, holdsSegments });
        expecting = array ? 'value-or-close' : 'key-or-close';
      } else if (char === '"') {
        at = stringEnd();
        if (at < 0) return { elementLines, errorLine: line };
        expecting = afterValue();
      } else {
        LITERAL.lastIndex = at;
        if (!LITERAL.test(text)) return { elementLines, errorLine: line };
        at = LITERAL.lastIndex - 1;
        expecting = afterValue();
      }
    } else if ((expecting === 'key' || expecting === 'key-or-close') && char === '"') {
      const end = stringEnd();
      if (end < 0) return { elementLines, errorLine: line };
      lastKey = stack.length === 1 ? (JSON.parse(text.slice(at, end + 1)) as string) : lastKey;
      at = end;
      expecting = 'colon';
    } else if (expecting === 'colon' && char === ':') {
      expecting = 'value';
    } else if (expecting === 'next' && char === ',') {
      expecting = top?.array ? 'value' : 'key';
    } else if (expecting === 'next' && char === (top?.array ? ']' : '}')) {
      stack.pop();
      expecting = afterValue();
    } else {
      return { elementLines, errorLine: line };
    }
  }
  return { elementLines, errorLine: expecting === 'end' ? null : line };
}
