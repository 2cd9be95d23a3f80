/**
 * `text` cut to at most `max` characters, ending in '…' when cut. Counts code points, so a cut
 * never splits an emoji or any other character made of two UTF-16 units.
 */
export function truncate(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : text;
}

/** "1 meeting", "3 meetings"; `plural` for irregular words. */
export const counted = (n: number, singular: string, plural = `${singular}s`) =>
  `${n} ${n === 1 ? singular : plural}`;

/** A title cut at a word boundary (white space collapsed), ending in '…' when cut. */
export function clipped(text: string, max = 90): string {
  const clean = text.trim().replace(/\s+/g, ' ');
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const boundary = cut.lastIndexOf(' ');
  return `${(boundary > max / 2 ? cut.slice(0, boundary) : cut).replace(/[\s,;:.]+$/, '')}…`;
}
