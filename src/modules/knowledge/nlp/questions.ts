import type { KnowledgeQuote } from '../../../db/schema/knowledge.ts';
import type { ExtractedItem } from '../extraction.ts';
import { DEFERS, PROCEDURAL_QUESTIONS, QUESTION_TAGS } from './cues.ts';
import { around, clausesAround, clip, type Document, MAX_ITEM_WORDS, type Sentence } from './document.ts';
import { CALENDAR_WORDS, GENERIC_NOUNS } from './lexicon.ts';
import { tokenize } from './text.ts';

/** A real question has at least this many words ("Ready?", "Guillermo you want to?" do not count)… */
const MIN_QUESTION_WORDS = 6;
/** …and this many content words: it must be about something. */
const MIN_QUESTION_CONTENT = 2;
/** An answer comes within this many turns of the question. */
const ANSWER_WINDOW = 4;
/**
 * A yes or no answers only with some substance after it ("Yes." alone is back-channel); so does
 * the reply right after a question that shares none of its words.
 */
const MIN_REPLY_WORDS = 6;
/** An answer quote runs to this many words, in whole sentences. */
const ANSWER_WORDS = 12;

const YES_NO =
  /^\W*(?:yes|yeah|yep|no|nope|sure|definitely|absolutely|of course|not really|correct|exactly)\b/i;

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The question a sentence asks, if it is a real one: it ends with "?" (a short remark after the
 * mark, "…by Friday? Thanks.", is left out), has five words or more and two content words, is no
 * tag on a statement ("…, right?") and does not run the meeting ("Shall we move on?"). It is
 * answered when, within the next four turns, someone else speaks to it: sharing one of its content
 * words, or saying yes or no with more to say; or when the very next turn is someone else's
 * statement of six words or more with a content word ("How are things going with the rollout?" — "Mostly well. We now have
 * three hundred people…"). A reply that leaves it open ("Good question, I do not know yet", "let
 * us keep that open", "I will confirm") ends the search: the question stays open.
 */
export function findQuestion(doc: Document, sentence: Sentence): Omit<ExtractedItem, 'subject'> | null {
  const mark = questionMark(sentence.text);
  if (mark === null) return null;
  const [from, to] = clausesAround(sentence, lastClauseStart(sentence.text, mark));
  const { text, start, end } = clip(sentence, from, Math.min(to, mark + 1));
  if (wordsIn(text) < MIN_QUESTION_WORDS || QUESTION_TAGS.test(text)) return null;
  if (PROCEDURAL_QUESTIONS.some((pattern) => pattern.test(text))) return null;
  const stems = new Set(
    tokenize(text)
      .filter(
        (token) => token.content && !GENERIC_NOUNS.has(token.normal) && !CALENDAR_WORDS.has(token.normal),
      )
      .map((token) => token.stem),
  );
  if (stems.size < MIN_QUESTION_CONTENT) return null;
  const answer = answerTo(doc, sentence, stems);
  return {
    kind: 'question',
    text,
    start,
    end,
    speaker: sentence.speaker,
    owner: null,
    dueDate: null,
    answered: answer !== null,
    answer,
  };
}

/** Where the sentence's question ends: its last "?", when fewer than four words follow it. */
function questionMark(text: string): number | null {
  const mark = text.lastIndexOf('?');
  if (mark < 0 || wordsIn(text.slice(mark + 1)) >= 4) return null;
  return mark;
}

/** The start of the clause a question mark ends (the cut of a long sentence reaches back from it). */
function lastClauseStart(text: string, mark: number): number {
  const before = text.slice(0, mark);
  const cut = Math.max(before.lastIndexOf(', '), before.lastIndexOf('. '), before.lastIndexOf('; '));
  return cut < 0 ? 0 : cut + 2;
}

function answerTo(doc: Document, question: Sentence, stems: Set<string>): KnowledgeQuote | null {
  const last = Math.min(doc.turns.length - 1, question.turn + ANSWER_WINDOW);
  for (let index = question.turn + 1; index <= last; index++) {
    const turn = doc.turns[index];
    const sentences = doc.byTurn[index] ?? [];
    if (!turn || sentences.length === 0) continue;
    if (question.speaker !== null && turn.speaker === question.speaker) continue;
    const [first] = sentences;
    // Asked back ("Do you mean the battery?") is no answer yet.
    if (!first || first.text.trimEnd().endsWith('?')) continue;
    if (
      DEFERS.test(
        sentences
          .slice(0, 2)
          .map((sentence) => sentence.text)
          .join(' '),
      )
    )
      return null;
    const shares = sentences.some((sentence) => sentence.stems.some((stem) => stems.has(stem)));
    const substantial = wordsIn(turn.text) >= MIN_REPLY_WORDS;
    const yesNo = YES_NO.test(turn.text) && substantial;
    const direct =
      index === question.turn + 1 && substantial && sentences.some((sentence) => sentence.stems.length > 0);
    if (shares || yesNo || direct) return quote(doc, index, sentences);
  }
  return null;
}

/** The first sentences of the answering turn, verbatim, about `ANSWER_WORDS` words. */
function quote(doc: Document, turnIndex: number, sentences: Sentence[]): KnowledgeQuote {
  const first = sentences[0] as Sentence;
  if (first.words >= ANSWER_WORDS) return { ...around(first, 0), speaker: first.speaker };
  let last = first;
  let words = first.words;
  for (const sentence of sentences.slice(1)) {
    if (words >= ANSWER_WORDS || sentence.words > MAX_ITEM_WORDS) break;
    last = sentence;
    words += sentence.words;
  }
  const text = (doc.turns[turnIndex]?.text ?? '').slice(first.offset, last.offset + last.text.length);
  return { text, start: first.start, end: last.end, speaker: first.speaker };
}
