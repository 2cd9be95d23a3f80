import type { Segment } from './segment.ts';

type Cue = Pick<Segment, 'start' | 'end' | 'speaker' | 'text'>;

/** `01:02:03.456` (WebVTT) or `01:02:03,456` (SRT). */
export function formatTimestamp(seconds: number, separator: '.' | ','): string {
  const totalMs = Math.round(seconds * 1000);
  const ms = totalMs % 1000;
  const totalSeconds = (totalMs - ms) / 1000;
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}${separator}${pad(ms, 3)}`;
}

// Cue text cannot hold markup characters or "-->"; escaping them keeps any text intact.
const escapeVtt = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** WebVTT, one numbered cue per segment, speakers as `<v Name>` voice spans. */
export function toVtt(segments: Cue[]): string {
  const cues = segments.map((segment, index) => {
    const voice = segment.speaker ? `<v ${escapeVtt(segment.speaker)}>` : '';
    const timing = `${formatTimestamp(segment.start, '.')} --> ${formatTimestamp(segment.end, '.')}`;
    return `${index + 1}\n${timing}\n${voice}${escapeVtt(segment.text)}\n`;
  });
  return ['WEBVTT\n', ...cues].join('\n');
}

/** SRT, speakers as a `Name: ` prefix (SRT has no speaker markup). */
export function toSrt(segments: Cue[]): string {
  return segments
    .map((segment, index) => {
      const timing = `${formatTimestamp(segment.start, ',')} --> ${formatTimestamp(segment.end, ',')}`;
      const label = segment.speaker ? `${segment.speaker}: ` : '';
      return `${index + 1}\n${timing}\n${label}${segment.text}\n`;
    })
    .join('\n');
}
