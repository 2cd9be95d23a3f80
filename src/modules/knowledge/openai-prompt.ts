import { z } from 'zod';
import { utcDay } from '../../lib/clock.ts';
import type { TranscriptTurn } from './extraction.ts';

/** A turn as the model sees it: numbered from 1 through the whole transcript. */
export type NumberedTurn = TranscriptTurn & { number: number };

/** Words of transcript per request: an hour of talk in one or two requests, well inside a model's context. */
export const WINDOW_WORDS = 12_000;

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Consecutive whole turns of at most `maxWords` words each (a longer turn is a window alone). */
export function windowsOf(turns: NumberedTurn[], maxWords: number): NumberedTurn[][] {
  const windows: NumberedTurn[][] = [];
  let current: NumberedTurn[] = [];
  let words = 0;
  for (const turn of turns) {
    const own = wordsIn(turn.text);
    if (current.length > 0 && words + own > maxWords) {
      windows.push(current);
      current = [];
      words = 0;
    }
    current.push(turn);
    words += own;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

const clockTime = (seconds: number) => {
  const whole = Math.max(0, Math.floor(seconds));
  return [Math.floor(whole / 3600), Math.floor(whole / 60) % 60, whole % 60]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
};

/** `[12] Alice (00:03:10): text` */
export const turnLine = (turn: NumberedTurn) =>
  `[${turn.number}] ${turn.speaker ?? 'Unknown speaker'} (${clockTime(turn.start)}): ${turn.text.trim()}`;

const SHAPE =
  '{"summary": [{"turn": 3, "text": "..."}], "chapters": [{"title": "...", "startTurn": 1}], ' +
  '"decisions": [{"turn": 7, "quote": "..."}], ' +
  '"actionItems": [{"turn": 9, "quote": "...", "owner": "Maria" or null, "due": "by Friday" or null}], ' +
  '"questions": [{"turn": 11, "quote": "...", "answeredByTurn": 12 or null}], ' +
  '"topics": [{"name": "...", "keywords": ["..."]}]}';

export const EXTRACTION_PROMPT = [
  'You extract knowledge from a meeting transcript given as numbered turns: [number] Speaker (hh:mm:ss): words.',
  `Reply with one JSON object and nothing else, of this shape: ${SHAPE}`,
  'summary: 3 to 6 short sentences in your own words, in time order, each with the number of the turn it rests on.',
  'chapters: where the talk moves to a new subject, a short title and the number of the turn it starts at.',
  'decisions, actionItems, questions: "quote" copies words of that one turn exactly as written, ' +
    'one sentence or the part of it that makes the point; never paraphrase, shorten inside, or join turns.',
  'owner: who is to do it, by the name the transcript uses (the speaker for "I will..."), or null. ' +
    'due: the words of the turn that say when ("by Friday"), or null; never a date you work out.',
  'questions: real questions about the subject; answeredByTurn: the later turn where someone else answers it, or null.',
  'topics: at most 10 things the meeting is about, each named by a noun or short noun phrase said in it, ' +
    'with up to 8 words said alongside it as keywords.',
  'Use only turn numbers of the transcript given. Leave a list empty rather than guess.',
].join('\n');

export function extractionRequest(
  meeting: { title: string; meetingDate: Date },
  window: NumberedTurn[],
  part: { index: number; of: number },
): string {
  const first = window[0]?.number;
  const last = window.at(-1)?.number;
  const heading =
    `Meeting: ${meeting.title}\nDate: ${utcDay(meeting.meetingDate)}\n` +
    (part.of > 1
      ? `This is part ${part.index + 1} of ${part.of} of the transcript (turns ${first}–${last}).\n`
      : '');
  return `${heading}\nTranscript:\n${window.map(turnLine).join('\n')}`;
}

export const SUMMARY_PROMPT = [
  'You write the summary of a meeting from the summaries of its parts, given as [turn number] sentence.',
  'Reply with one JSON object and nothing else, of this shape: {"summary": [{"turn": 3, "text": "..."}]}',
  'summary: 3 to 6 short sentences in time order, each with the turn number of the part sentence it rests on.',
].join('\n');

export const summaryRequest = (title: string, sentences: Array<{ turn: number; text: string }>) =>
  `Meeting: ${title}\n\nSummaries of its parts:\n${sentences.map((s) => `[${s.turn}] ${s.text}`).join('\n')}`;

export const reminder = (problem: string) =>
  `That reply was not the JSON object asked for (${problem}). Reply again with that JSON object only.`;

const turnNumber = z.number().int();
/** Models write `null` or leave a key out for "none"; both read as absent. */
const optionalText = z.string().nullish();

export const extractionReply = z.object({
  summary: z.array(z.object({ turn: turnNumber, text: z.string() })).default([]),
  chapters: z.array(z.object({ title: z.string(), startTurn: turnNumber })).default([]),
  decisions: z.array(z.object({ turn: turnNumber, quote: z.string() })).default([]),
  actionItems: z
    .array(z.object({ turn: turnNumber, quote: z.string(), owner: optionalText, due: optionalText }))
    .default([]),
  questions: z
    .array(z.object({ turn: turnNumber, quote: z.string(), answeredByTurn: turnNumber.nullish() }))
    .default([]),
  topics: z.array(z.object({ name: z.string(), keywords: z.array(z.string()).default([]) })).default([]),
});
export type ExtractionReply = z.infer<typeof extractionReply>;

export const summaryReply = extractionReply.pick({ summary: true });

/** The reply read against its schema, or what is wrong with it (said back to the model in the reminder). */
export function parseReply<T>(
  reply: unknown,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; problem: string } {
  if (typeof reply !== 'string') return { ok: false, problem: 'no text' };
  let json: unknown;
  try {
    // JSON mode should not fence its reply, but some compatible servers do.
    json = JSON.parse(reply.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const [issue] = result.error.issues;
  return { ok: false, problem: `${issue?.path.join('.') || 'reply'}: ${issue?.message ?? 'invalid'}` };
}
