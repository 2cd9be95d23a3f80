import type { Chapter, KnowledgeQuote } from '../../db/schema/knowledge.ts';

/**
 * What knowledge extraction reads and makes. An extractor turns one transcript into a summary,
 * chapters, items (decisions, action items, questions) and topics; every piece keeps the seconds
 * and speaker it came from. The `local` extractor works offline; a model-backed one implements
 * the same contract.
 */

/** One speaker turn (or subtitle cue) of a transcript, in order. */
export type TranscriptTurn = {
  index: number;
  start: number;
  end: number;
  speaker: string | null;
  text: string;
};

export type ItemKind = 'decision' | 'action_item' | 'question';

export type ExtractedItem = {
  kind: ItemKind;
  /** Verbatim words of the transcript (one sentence, or a few when the point runs on). */
  text: string;
  speaker: string | null;
  start: number;
  end: number;
  /** Action items: who is to do it, when said ("I'll…" → the speaker; "Maria will…" → Maria). */
  owner: string | null;
  /** Action items: `YYYY-MM-DD`, when a date is said ("by Friday"), resolved against the meeting's date. */
  dueDate: string | null;
  /** Questions: whether a later turn by someone else answers it (null for other kinds). */
  answered: boolean | null;
  /** Questions: the answering words, when answered. */
  answer: KnowledgeQuote | null;
  /** Stemmed content words of the text, sorted and de-duplicated, space-separated. */
  subject: string;
};

export type ExtractedTopic = {
  /** Stemmed words, space-separated: the same key in two meetings is the same topic. */
  key: string;
  /** The most common surface form ("remote control"). */
  name: string;
  /** Words said alongside it, most telling first (≤ 8). */
  keywords: string[];
  mentions: number;
  /** How central to this meeting, 0–1 (the best topic of the meeting is 1). */
  score: number;
  firstStart: number;
};

export type Extraction = {
  /** 3–6 sentences, in time order, verbatim with their moments. */
  summary: KnowledgeQuote[];
  chapters: Chapter[];
  items: ExtractedItem[];
  topics: ExtractedTopic[];
};

export type KnowledgeExtractor = {
  readonly name: string;
  extract(input: { title: string; turns: TranscriptTurn[]; meetingDate: Date }): Promise<Extraction>;
};
