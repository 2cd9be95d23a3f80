/**
 * `text` cut to at most `max` characters, ending in '…' when cut. Counts code points, so a cut
 * never splits an emoji or any other character made of two UTF-16 units.
 */
export function truncate(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : text;
}
