/**
 * Seconds in a duration written as `754`, `754s`, `12:34`, `1:02:03` or ISO 8601 `PT1H2M3S`
 * (fractions allowed); null when the text is none of these.
 */
export function durationToSeconds(text: string): number | null {
  const value = text.trim();
  const plain = /^(\d+(?:\.\d+)?)\s*s?$/i.exec(value);
  if (plain) return Number(plain[1]);

  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(value);
  if (clock) {
    const [hours, minutes, seconds] = [Number(clock[1] ?? 0), Number(clock[2]), Number(clock[3])];
    // With hours, minutes are 0–59; `12:34` alone may mean 12 minutes. Seconds are always < 60.
    if (seconds >= 60 || (clock[1] !== undefined && minutes >= 60)) return null;
    return hours * 3600 + minutes * 60 + seconds;
  }

  const iso =
    /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
      value,
    );
  if (iso && value.length > 2 && !/T$/i.test(value)) {
    const [days, hours, minutes, seconds] = [iso[1], iso[2], iso[3], iso[4]].map((part) => Number(part ?? 0));
    return (days ?? 0) * 86_400 + (hours ?? 0) * 3600 + (minutes ?? 0) * 60 + (seconds ?? 0);
  }
  return null;
}

/** "45 s", "12 min", "1 h", "2 h 5 min": a length of time as people say it. */
export function spokenDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest === 0 ? '' : ` ${rest} min`}`;
}

/** `75` → `1:15`, `3725` → `1:02:05`: whole seconds as people write a video's length. */
export function clockDuration(wholeSeconds: number): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const [hours, minutes, rest] = [
    Math.floor(wholeSeconds / 3600),
    Math.floor(wholeSeconds / 60) % 60,
    wholeSeconds % 60,
  ];
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(rest)}` : `${minutes}:${pad(rest)}`;
}
