/** `75` → `1:15`, `3725` → `1:02:05`: how players show a position. */
export function clockTime(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${secs}` : `${minutes}:${secs}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A date in the viewer's own time zone and language. */
export const formatDate = (iso: string) => dateFormat.format(new Date(iso));
export const formatDateTime = (iso: string) => dateTimeFormat.format(new Date(iso));

/** The link that opens a meeting at a second. */
export const momentLink = (videoId: string, seconds: number) => `/videos/${videoId}?t=${Math.floor(seconds)}`;

const CUE_TIME = /(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})/g;

/** The latest cue time in a WebVTT or SRT file, in seconds (0 for plain text): the meeting's length. */
export function lastCueSeconds(text: string): number {
  let latest = 0;
  for (const [, hours, minutes, seconds] of text.matchAll(CUE_TIME)) {
    latest = Math.max(latest, Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds));
  }
  return latest;
}
