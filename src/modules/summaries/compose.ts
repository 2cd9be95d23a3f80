import type { Citation } from '../ai/engine.ts';

/** A moment a summary quotes: verbatim words of a meeting and when they were said. */
export type Quotable = {
  videoId: string;
  videoTitle: string;
  /** When its meeting was held. */
  date: Date;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
};

/**
 * The citations of one response. An engine's answer comes with its own (numbered after its
 * sources); moments quoted from stored knowledge are numbered after them, each moment once.
 */
export function citationBook(initial: Citation[] = []) {
  const citations = [...initial];
  const key = (videoId: string, quote: string) => `${videoId}\n${quote}`;
  const numbers = new Map(
    citations.map((citation) => [key(citation.videoId, citation.quote), citation.source]),
  );
  let next = Math.max(0, ...citations.map((citation) => citation.source)) + 1;
  return {
    /** The `[n]` number of the moment, cited anew unless it already is. */
    cite(moment: Quotable): number {
      const known = numbers.get(key(moment.videoId, moment.text));
      if (known !== undefined) return known;
      const source = next++;
      numbers.set(key(moment.videoId, moment.text), source);
      citations.push({
        source,
        videoId: moment.videoId,
        videoTitle: moment.videoTitle,
        heldAt: moment.date.toISOString(),
        start: moment.start,
        end: moment.end,
        speaker: moment.speaker,
        quote: moment.text,
      });
      return source;
    },
    list: () => citations,
  };
}

/** "a", "a and b", "a, b and c"; beyond `max`, "a, b, c and 2 more". */
export function listed(items: string[], max = 5): string {
  const shown = items.length > max ? [...items.slice(0, max), `${items.length - max} more`] : items;
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}
