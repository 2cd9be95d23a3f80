import type { Extraction, KnowledgeExtractor, TranscriptTurn } from './extraction.ts';
import { buildChapters, chapterStarts } from './nlp/chapters.ts';
import { analyse } from './nlp/document.ts';
import { findItems } from './nlp/items.ts';
import { mentionsIn, withoutShadowed } from './nlp/phrases.ts';
import { summarise } from './nlp/summary.ts';
import { findTopics, topicMinMentions } from './nlp/topics.ts';

export { subjectOf } from './nlp/text.ts';

/**
 * Knowledge from a transcript with no model service: rules and statistics over the words said
 * (part-of-speech tags and stems from wink-nlp, dates from chrono-node). Everything it returns is
 * verbatim transcript text with the seconds it was said at. Deterministic, offline, and a few
 * hundred milliseconds for an hour-long meeting.
 */
export function createLocalExtractor(): KnowledgeExtractor {
  return {
    name: 'local',
    extract: async ({ title, turns, meetingDate }) => extractLocally(title, turns, meetingDate),
  };
}

/**
 * Words read, at most: about six and a half hours of speech, two seconds of work. Extraction runs
 * on the server's event loop; a 25 MiB transcript read whole would hold it for minutes.
 */
export const MAX_EXTRACTED_WORDS = 60_000;

/** The turns from the start that hold at most `MAX_EXTRACTED_WORDS` words. */
function readable(turns: TranscriptTurn[]): TranscriptTurn[] {
  let words = 0;
  const kept: TranscriptTurn[] = [];
  for (const turn of turns) {
    if (turn.text.trim() === '') continue;
    words += turn.text.split(/\s+/).length;
    if (words > MAX_EXTRACTED_WORDS) break;
    kept.push(turn);
  }
  return kept;
}

export function extractLocally(title: string, turns: TranscriptTurn[], meetingDate: Date): Extraction {
  const spoken = readable(turns);
  if (spoken.length === 0) return { summary: [], chapters: [], items: [], topics: [] };
  const doc = analyse(spoken);
  const mentions = withoutShadowed(
    doc.sentences.map((sentence) => mentionsIn(doc, sentence)),
    topicMinMentions(doc),
  );
  const starts = chapterStarts(doc);
  const items = findItems(doc, meetingDate);
  const topics = findTopics(doc, mentions, starts);
  return {
    summary: summarise(doc, items, topics, starts),
    chapters: buildChapters(doc, starts, mentions, title),
    items,
    topics,
  };
}
