/** Comparisons of stemmed word sets: what gaps are made of. They run for many pairs at once. */

/** The words of a stored `subject` (stemmed content words, space-separated). */
export const subjectWords = (subject: string) => new Set(subject.split(/\s+/).filter(Boolean));

// Plain loops, no arrays made: these run for every pair of items compared.
export function covers(words: Set<string>, part: Set<string>): boolean {
  if (part.size === 0) return false;
  for (const word of part) if (!words.has(word)) return false;
  return true;
}
export function shareOf(of: Set<string>, other: Set<string>): number {
  if (of.size === 0) return 0;
  let shared = 0;
  for (const word of of) if (other.has(word)) shared++;
  return shared / of.size;
}

export type Dated = { date: Date; words: Set<string> };

/** Word → the entries that hold it: one question is compared with the few entries sharing a word, not all. */
export function byWord<Entry extends { words: Set<string> }>(entries: Entry[]): Map<string, Entry[]> {
  const index = new Map<string, Entry[]>();
  for (const entry of entries) {
    for (const word of entry.words) {
      const holding = index.get(word);
      if (holding) holding.push(entry);
      else index.set(word, [entry]);
    }
  }
  return index;
}

/** An index by word (byWord) whose every list runs latest first, as heldLater reads it. */
export type LatestFirst<Entry extends Dated = Dated> = Map<string, Entry[]> & { readonly latestFirst: true };

export const byWordLatestFirst = <Entry extends Dated>(entries: Entry[]) =>
  byWord([...entries].sort((a, b) => b.date.getTime() - a.date.getTime())) as LatestFirst<Entry>;

/**
 * Whether an entry dated after `date` holds at least `share` of `words` (shareOf, through the
 * index): each word's entries are read until the first one that is not later.
 */
export function heldLater(index: LatestFirst, words: Set<string>, date: Date, share: number): boolean {
  if (words.size === 0) return false;
  const shared = new Map<Dated, number>();
  for (const word of words) {
    for (const entry of index.get(word) ?? []) {
      if (entry.date <= date) break;
      shared.set(entry, (shared.get(entry) ?? 0) + 1);
    }
  }
  for (const count of shared.values()) if (count / words.size >= share) return true;
  return false;
}

/** The entries whose words cover `words` (covers, through the index: only those holding its first word), in order. */
export function covering<Entry extends { words: Set<string> }>(
  index: Map<string, Entry[]>,
  words: Set<string>,
): Entry[] {
  const [first] = words;
  if (first === undefined) return [];
  return (index.get(first) ?? []).filter((entry) => covers(entry.words, words));
}
