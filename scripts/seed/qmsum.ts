import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/** People speak about 150 words a minute: the rate QMSum turns are given times at. */
const WORDS_PER_MINUTE = 150;

export type QmsumMeeting = { title: string; transcript: string; duration: string; words: number };

type QmsumFile = { meeting_transcripts?: Array<{ speaker?: unknown; content?: unknown }> };

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
  let elapsed = 0;
  let words = 0;
  for (const turn of json.meeting_transcripts ?? []) {
    const text = String(turn.content ?? '')
      .replace(MARKERS, ' ')
      .replace(/\s+([,.?!])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim();
    const count = text.split(' ').filter(Boolean).length;
    if (count === 0) continue;
    lines.push(`[${clock(elapsed)}] ${speakerLabel(turn.speaker)}: ${text}`);
    // Timestamps are whole seconds and must increase: a turn of a word or two still takes one.
    elapsed = Math.max(Math.round(elapsed) + 1, elapsed + (count / WORDS_PER_MINUTE) * 60);
    words += count;
  }
  if (lines.length === 0) return null;
  return { title, transcript: lines.join('\n'), duration: clock(Math.max(1, elapsed)), words };
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
