import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** People speak about 150 words a minute: the rate QMSum turns are given times at. */
const WORDS_PER_MINUTE = 150;

export type QmsumMeeting = {
  title: string;
  transcript: string;
  duration: string;
  words: number;
  /** For each turn of the source, the transcript line (segment) it became; null for an empty turn. */
  segmentOfTurn: Array<number | null>;
};

export type QmsumFile = {
  meeting_transcripts?: Array<{ speaker?: unknown; content?: unknown }>;
  specific_query_list?: Array<{ query: string; relevant_text_span?: Array<[string, string]> }>;
};

/** A question about one meeting and the transcript segments QMSum marks as answering it. */
export type QmsumQuestion = { query: string; segmentRanges: Array<[number, number]> };

/** `{disfmarker}`, `{vocalsound}` and the like: annotations a recorder would not produce. */
const MARKERS = /\{[a-z_]+\}/gi;

const clock = (totalSeconds: number) => {
  const seconds = Math.round(totalSeconds);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h, m, s].map((part) => String(part).padStart(2, '0')).join(':');
};

/** A speaker label the transcript parser reads as one: letters, up to four words. */
function speakerLabel(raw: unknown): string {
  const words = String(raw ?? '')
    .replace(/[^\p{L}\p{N}' -]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 4);
  const label = words.join(' ').slice(0, 60);
  return /^\p{L}/u.test(label) ? label : `Speaker ${label || 'unknown'}`.trim();
}

/**
 * One QMSum meeting as a timestamped speaker-labelled transcript (`[00:01:02] Name: text`):
 * each turn starts where the words before it end at 150 words a minute.
 */
export function qmsumTranscript(json: QmsumFile, title: string): QmsumMeeting | null {
  const lines: string[] = [];
  const segmentOfTurn: Array<number | null> = [];
  let elapsed = 0;
  let words = 0;
  for (const turn of json.meeting_transcripts ?? []) {
    const text = String(turn.content ?? '')
      .replace(MARKERS, ' ')
      .replace(/\s+([,.?!])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim();
    const count = text.split(' ').filter(Boolean).length;
    if (count === 0) {
      segmentOfTurn.push(null);
      continue;
    }
    segmentOfTurn.push(lines.length);
    lines.push(`[${clock(elapsed)}] ${speakerLabel(turn.speaker)}: ${text}`);
    // Timestamps are whole seconds and must increase: a turn of a word or two still takes one.
    elapsed = Math.max(Math.round(elapsed) + 1, elapsed + (count / WORDS_PER_MINUTE) * 60);
    words += count;
  }
  if (lines.length === 0) return null;
  return {
    title,
    transcript: lines.join('\n'),
    duration: clock(Math.max(1, elapsed)),
    words,
    segmentOfTurn,
  };
}

/** The meetings of a QMSum directory, in file name order, at most `limit` of them. */
export async function readQmsumDirectory(dir: string, limit: number): Promise<QmsumMeeting[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  const meetings: QmsumMeeting[] = [];
  for (const file of files) {
    if (meetings.length >= limit) break;
    const json = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as QmsumFile;
    const meeting = qmsumTranscript(json, `QMSum meeting ${path.basename(file, '.json')}`);
    if (meeting) meetings.push(meeting);
  }
  return meetings;
}

/**
 * The meeting's specific questions with their answers as segment ranges (QMSum marks turn
 * ranges; the transcript has one segment per non-empty turn). Questions without a span are left out.
 */
export function qmsumQuestions(json: QmsumFile, meeting: QmsumMeeting): QmsumQuestion[] {
  return (json.specific_query_list ?? [])
    .map((question) => {
      const segmentRanges: Array<[number, number]> = [];
      for (const [from, to] of question.relevant_text_span ?? []) {
        const segments = meeting.segmentOfTurn
          .slice(Number(from), Number(to) + 1)
          .filter((segment): segment is number => segment !== null);
        if (segments.length > 0) segmentRanges.push([Math.min(...segments), Math.max(...segments)]);
      }
      return { query: question.query, segmentRanges };
    })
    .filter((question) => question.segmentRanges.length > 0);
}

/** Whether a passage (a range of segments) overlaps what answers the question. */
export const answers = (
  passage: { firstSegmentIndex: number; lastSegmentIndex: number },
  question: QmsumQuestion,
) =>
  question.segmentRanges.some(
    ([first, last]) => passage.firstSegmentIndex <= last && passage.lastSegmentIndex >= first,
  );
