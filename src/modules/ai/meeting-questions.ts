/**
 * Questions about one meeting as a whole: "What happened at the design review?", "Summarize this
 * call", "What did we decide in the last weekly sync?", "What are the action items from the
 * Northwind call?", "Who attended the design review?". Their words name a meeting, not what was
 * said in it, so retrieval by those words finds the other meetings that mention it. This reads
 * what such a question asks for and how it names the meeting; meeting-overview.ts finds the
 * meeting and answers from its knowledge (who attended: from its transcript).
 */

import * as chrono from 'chrono-node';

/** What the question asks of the meeting: all of it, its decisions, its action items, or who spoke. */
export type MeetingFocus = 'overview' | 'decisions' | 'actions' | 'participants';

export type MeetingQuestion = {
  focus: MeetingFocus;
  /** The words that name the meeting, without articles, qualifiers or "meeting"/"call": "design review". */
  name: string;
  /** "the last weekly sync" → latest, "the first sync" → earliest; otherwise null. */
  which: 'latest' | 'earliest' | null;
  /**
   * A day of the year the reference names ("the sync on January 12", "the January 12 sync"): the
   * meeting was held that day, or its title says it. Its words are not in `name`.
   */
  day: { month: number; day: number } | null;
};

const PREPOSITION = '(?:at|in|during|on|from|of)';
/** "What was agreed with Northwind?": decisions are also made with someone, the meeting named by them. */
const DECIDED_PREPOSITION = '(?:at|in|during|on|from|of|with)';
const WHO = '(?:we|they|you|people|everyone|the team|the group)';

/** Each phrasing, what it asks for, and the meeting reference it captures. */
const PHRASINGS: Array<[RegExp, MeetingFocus]> = [
  [/^(?:please |can you |could you )?(?:summari[sz]e|recap|sum up)\s+(.+)$/i, 'overview'],
  [
    /^(?:(?:can you |could you |please )?give me |what is |what's )?(?:a |an |the )?(?:summary|recap|overview|rundown|gist) of\s+(.+)$/i,
    'overview',
  ],
  [new RegExp(String.raw`^what (?:happened|went on) ${PREPOSITION}\s+(.+)$`, 'i'), 'overview'],
  [
    new RegExp(
      String.raw`^what (?:was|were|got) (?:discussed|covered|said|talked about) ${PREPOSITION}\s+(.+)$`,
      'i',
    ),
    'overview',
  ],
  [
    new RegExp(String.raw`^what did ${WHO} (?:discuss|talk about|cover) ${PREPOSITION}\s+(.+)$`, 'i'),
    'overview',
  ],
  [/^what (?:was|were) (.+?) about$/i, 'overview'],
  [/^how did (.+?) go$/i, 'overview'],
  [
    new RegExp(String.raw`^what (?:was|were|got) (?:decided|agreed) ${DECIDED_PREPOSITION}\s+(.+)$`, 'i'),
    'decisions',
  ],
  [
    new RegExp(
      String.raw`^what did ${WHO} (?:decide|agree)(?: on| upon)? ${DECIDED_PREPOSITION}\s+(.+)$`,
      'i',
    ),
    'decisions',
  ],
  // "What did the design review conclude?": its decisions. "What was the outcome of the
  // retrospective?": what was decided and taken on, as an overview says it.
  [new RegExp(String.raw`^what did (?!${WHO}\s)(.+?) (?:conclude|decide|settle on)$`, 'i'), 'decisions'],
  [new RegExp(String.raw`^what (?:was|were) the conclusions? ${PREPOSITION}\s+(.+)$`, 'i'), 'decisions'],
  [
    new RegExp(String.raw`^what (?:was|were) the (?:outcomes?|results?|upshot) ${PREPOSITION}\s+(.+)$`, 'i'),
    'overview',
  ],
  [/^what came out of\s+(.+)$/i, 'overview'],
  [
    new RegExp(
      String.raw`^(?:what (?:are|were) (?:the )?|what |the )?decisions(?: (?:were|got|did \w+))?(?: (?:made|taken|make|take|reached))? ${PREPOSITION}\s+(.+)$`,
      'i',
    ),
    'decisions',
  ],
  [
    new RegExp(
      String.raw`^(?:what (?:are|were) (?:the )?|the )?(?:action items|actions|next steps|follow[- ]ups|to-?dos|tasks)(?: (?:that )?came out)? ${PREPOSITION}\s+(.+)$`,
      'i',
    ),
    'actions',
  ],
  [/^who (?:has|owns|took on) what (?:after|from) (.+)$/i, 'actions'],
  [
    /^who (?:attended|was at|was in|were at|were in|joined|participated in|took part in|was present at|came to|spoke (?:at|in|during))\s+(.+)$/i,
    'participants',
  ],
  [
    /^who (?:were|are|was) the (?:participants|attendees|people|speakers) (?:of|in|at)\s+(.+)$/i,
    'participants',
  ],
];

/**
 * A reference that goes on to a topic ("the discussion about pricing", "the meeting regarding the
 * budget") asks about what was said, not about the meeting: retrieval answers it.
 */
const NAMES_A_TOPIC = /\b(?:about|regarding|concerning|on the subject of|on the topic of|around)\b/i;
const LATEST = /\b(?:last|latest|most recent|previous|recent)\b/i;
const EARLIEST = /\b(?:first|earliest)\b/i;
/** Words that say "a meeting" without naming one. */
const MEETING_WORDS =
  /\b(?:the|this|that|our|today'?s|yesterday'?s|whole|entire|meeting|meetings|call|calls|session|discussion|conversation|recording|video)\b/gi;

/** The meeting question `question` asks, or null when it asks about something said. */
export function meetingQuestion(question: string): MeetingQuestion | null {
  const asked = question
    .trim()
    .replace(/[?.!\s]+$/, '')
    .replace(/\s+/g, ' ');
  for (const [phrasing, focus] of PHRASINGS) {
    const reference = asked.match(phrasing)?.[1];
    if (!reference || NAMES_A_TOPIC.test(reference)) continue;
    const which = LATEST.test(reference) ? 'latest' : EARLIEST.test(reference) ? 'earliest' : null;
    const dated = chrono
      .parse(reference)
      .find((result) => result.start.isCertain('month') && result.start.isCertain('day'));
    const day = dated
      ? { month: dated.start.get('month') as number, day: dated.start.get('day') as number }
      : null;
    const name = (dated ? reference.replace(dated.text, ' ') : reference)
      .replace(new RegExp(LATEST, 'gi'), ' ')
      .replace(new RegExp(EARLIEST, 'gi'), ' ')
      .replace(MEETING_WORDS, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { focus, name, which, day };
  }
  return null;
}
