import type { ExtractedItem } from '../extraction.ts';
import {
  ACCEPTS,
  ACTION_CUES,
  ACTIONS_LISTED,
  type ActionCue,
  ANNOUNCES_DECISION,
  CONDITIONAL,
  DATED_TASK_VERBS,
  DECISION_CUES,
  NOT_DECIDED,
  QUESTION_TAGS,
  REPORTED,
  TAKES_IT_ON,
  TASK_PARTICLES,
  TASK_VERBS,
} from './cues.ts';
import { dueDateIn } from './dates.ts';
import { around, type Document, type Sentence } from './document.ts';
import { CALENDAR_WORDS } from './lexicon.ts';
import { findQuestion } from './questions.ts';
import { subjectOf } from './text.ts';

type Found = Omit<ExtractedItem, 'subject'>;

/** Content words a decision needs: fewer is a fragment ("we'll skip that"), not a decision. */
const MIN_DECISION_WORDS = 2;
/** A reply comes within this many turns of what it answers. */
const REPLY_TURNS = 2;

/**
 * The decisions, action items and questions of a transcript, in time order, at most one per
 * sentence: an action item with an owner or a due date says more than the decision it may also
 * be ("we agreed Maria sends it by Friday"), a decision more than a bare commitment.
 */
export function findItems(doc: Document, meetingDate: Date): ExtractedItem[] {
  const items: Array<ExtractedItem & { turn: number }> = [];
  for (const [at, sentence] of doc.sentences.entries()) {
    const action = findAction(doc, sentence, meetingDate);
    const previous = doc.sentences[at - 1];
    const announced = previous?.turn === sentence.turn && ANNOUNCES_DECISION.test(previous.text);
    const decision = announced ? announcedDecision(previous, sentence) : findDecision(sentence);
    const found =
      action && (action.owner || action.dueDate || !decision)
        ? pointedAt(action, previous, sentence)
        : (decision ?? findQuestion(doc, sentence));
    if (!found) continue;
    const kept = { ...found, subject: subjectOf(found.text), turn: sentence.turn };
    // "Um. But we'll skip that.": a decision must say what about, in two words at least.
    if (kept.kind === 'decision' && kept.subject.split(' ').filter(Boolean).length < MIN_DECISION_WORDS)
      continue;
    if (!items.some((earlier) => restates(kept, earlier))) items.push(kept);
  }
  return items.map(({ turn, ...item }) => item);
}

/**
 * "Sure, I will send them." right after "Tom, can you send the notes by Friday?": the owner taking
 * on a task already listed, with nothing new to say about it.
 */
function restates(
  item: ExtractedItem & { turn: number },
  earlier: ExtractedItem & { turn: number },
): boolean {
  if (item.kind !== 'action_item' || earlier.kind !== 'action_item' || item.owner !== earlier.owner)
    return false;
  if (item.turn - earlier.turn > REPLY_TURNS) return false;
  const said = new Set(earlier.subject.split(' '));
  return item.subject.split(' ').every((stem) => stem === '' || said.has(stem));
}

/**
 * Whether a clause is asked rather than said: it runs to a question mark before the next stop
 * (a tag, "…, alright?", leaves it said).
 */
const isAsked = (text: string, at: number) => /^[^.!]*\?/.test(text.slice(at).replace(QUESTION_TAGS, '.'));

/** A word every decision cue holds (cues.ts): most sentences hold none, and skip the cues' patterns. */
const MAY_DECIDE = /\b(?:we|decided|agreed|settled|final|decision|let)\b/i;

/**
 * Where a sentence states a decision taken as it is said: the position of its cue ("we decided",
 * "decision:"), or null — also for a cue asked, conditional or reporting a decision taken elsewhere.
 */
export function decisionCueIn(text: string): number | null {
  if (!MAY_DECIDE.test(text)) return null;
  for (const pattern of DECISION_CUES) {
    for (const match of text.matchAll(pattern)) {
      if (isAsked(text, match.index)) continue;
      const before = text.slice(0, match.index);
      if (NOT_DECIDED.test(before) || REPORTED.test(before)) continue;
      return match.index;
    }
  }
  return null;
}

function findDecision(sentence: Sentence): Found | null {
  const at = decisionCueIn(sentence.text);
  return at === null ? null : item('decision', sentence, at);
}

/**
 * A task taken on by pointing at the sentence before ("Two: a lock panel and an alert. That is
 * mine, due January 21."), with that sentence: on its own it says whose, not what.
 */
function pointedAt(action: Found, previous: Sentence | undefined, sentence: Sentence): Found {
  if (!previous || previous.turn !== sentence.turn || !TAKES_IT_ON.test(action.text)) return action;
  return { ...action, text: `${previous.text} ${action.text}`, start: previous.start };
}

/** The decision with the words that announce it: "Then the decision changes." says it replaces one. */
function announcedDecision(announcement: Sentence, sentence: Sentence): Found {
  const found = item('decision', sentence, 0);
  return { ...found, text: `${announcement.text} ${found.text}` };
}

function findAction(doc: Document, sentence: Sentence, meetingDate: Date): Found | null {
  for (const rule of ACTION_CUES) {
    for (const match of sentence.text.matchAll(rule.pattern)) {
      // A request is asked ("can you send…?"); anything else asked is a question, not a task.
      if (rule.owner !== 'addressee' && isAsked(sentence.text, match.index)) continue;
      if (CONDITIONAL.test(sentence.text.slice(0, match.index))) continue;
      const verb = match.groups?.verb;
      const rest = verb ? sentence.text.slice(match.index + match[0].length - verb.length) : '';
      const task = verb !== undefined && isTask(verb, rest);
      const talk = verb !== undefined && isDatedTaskVerb(verb);
      // Days are read (chrono: the costliest step) only for a verb that may be a task.
      if (!rule.claims && !task && !talk) continue;
      const found = item('action_item', sentence, match.index);
      // "Aisha, can you write that into the checklist?" — "Yes, by January 19.": the reply names the day.
      const reply = rule.owner === 'addressee' ? replyTo(doc, sentence) : undefined;
      const dueDate = dueDateIn(found.text, meetingDate) ?? (reply ? replyDate(reply, meetingDate) : null);
      // A talk verb is a task when done on a later day: "I present two petitions this morning" is the meeting.
      const later = dueDate !== null && dueDate > meetingDate.toISOString().slice(0, 10);
      if (!rule.claims && !task && !(talk && later)) continue;
      const owner = ownerOf(doc, sentence, rule, match.groups ?? {});
      if (owner === undefined) continue;
      if (rule.needsDate && !dueDate && !listedAsAction(doc, sentence, match.index)) continue;
      // A request nobody takes on and with no day to it is talk ("could you check…?").
      if (rule.owner === 'addressee' && !owner && !dueDate) continue;
      return { ...found, owner, dueDate };
    }
  }
  return null;
}

/** Whether the words at `at` in the sentence follow "Actions:" in their turn. */
const listedAsAction = (doc: Document, sentence: Sentence, at: number) =>
  ACTIONS_LISTED.test(doc.turns[sentence.turn]?.text.slice(0, sentence.offset + at) ?? '');

/** A verb as said and its base forms, lower case: "sets" → sets, set. */
const verbForms = (verb: string) =>
  [verb, verb.replace(/e?s$/i, ''), verb.replace(/s$/i, '')].map((form) => form.toLowerCase());

/** A talk verb ("present", "discuss") that is a task only when done on a later day. */
const isDatedTaskVerb = (verb: string) => verbForms(verb).some((form) => DATED_TASK_VERBS.has(form));

/** Whether `verb` (as said, "sets"), followed by `rest` ("sets up alerting…"), names a task on any day. */
function isTask(verb: string, rest: string): boolean {
  const base = verbForms(verb).find((form) => TASK_VERBS.has(form));
  if (!base) return false;
  const particle = TASK_PARTICLES[base];
  return !particle || particle.test(base + rest.slice(verb.length));
}

function item(kind: Found['kind'], sentence: Sentence, at: number): Found {
  const { text, start, end } = around(sentence, at);
  return {
    kind,
    text,
    start,
    end,
    speaker: sentence.speaker,
    owner: null,
    dueDate: null,
    answered: null,
    answer: null,
  };
}

/**
 * Who an action item is for: the speaker for "I'll…", the person named for "Maria will…", and for
 * a request the person called by name ("Priya, can you…") or else the one who takes it on in the
 * next turns ("Sure."). `undefined` when the words that looked like a name are not one ("It will…").
 */
function ownerOf(
  doc: Document,
  sentence: Sentence,
  rule: ActionCue,
  groups: Record<string, string | undefined>,
): string | null | undefined {
  switch (rule.owner) {
    case 'speaker':
      return sentence.speaker;
    case 'none':
      return null;
    case 'named': {
      const name = groups.owner ?? groups.assignee;
      if (!name) return null;
      return isName(doc, sentence, name) ? fullName(doc, name) : undefined;
    }
    case 'addressee': {
      const called = addressed(sentence.text);
      if (called && isName(doc, sentence, called)) return fullName(doc, called);
      return taker(doc, sentence);
    }
  }
}

const VOCATIVE_FIRST = /^\W*(?:(?:okay|ok|so|and|now|right|good|great|well|alright)\W+)*(\p{Lu}[\p{L}'-]+),/u;
const VOCATIVE_LAST = /,\s*(\p{Lu}[\p{L}'-]+)\s*[?.!]?$/u;

const addressed = (text: string) => text.match(VOCATIVE_FIRST)?.[1] ?? text.match(VOCATIVE_LAST)?.[1] ?? null;

/** A capitalised word the tagger takes for a proper noun, or a speaker's name; no weekday or month. */
function isName(doc: Document, sentence: Sentence, word: string): boolean {
  const lower = word.toLowerCase();
  if (!/^\p{Lu}/u.test(word) || CALENDAR_WORDS.has(lower)) return false;
  if (doc.speakerNames.has(lower)) return true;
  return sentence.tokens.some((token) => token.value === word && token.pos === 'PROPN');
}

/** "Maria" is "Maria Lopez" when exactly one speaker's label holds that name. */
function fullName(doc: Document, name: string): string {
  const lower = name.toLowerCase();
  const labels = new Set(
    doc.turns
      .map((turn) => turn.speaker)
      .filter((label): label is string => !!label && label.toLowerCase().split(/\s+/).includes(lower)),
  );
  return labels.size === 1 ? ([...labels][0] as string) : name;
}

/** The next turn by someone else, when it takes the request on ("Sure, I will…", "Yes, by Friday."). */
function replyTo(doc: Document, sentence: Sentence) {
  for (const turn of doc.turns.slice(sentence.turn + 1, sentence.turn + 1 + REPLY_TURNS)) {
    if (turn.speaker === sentence.speaker) continue;
    return ACCEPTS.test(turn.text) ? turn : undefined;
  }
  return undefined;
}

/** A reply short enough that a day in it is the request's due date ("Yes, by January 19."). */
const MAX_DATED_REPLY_WORDS = 10;
const replyDate = (reply: { text: string }, meetingDate: Date) =>
  reply.text.split(/\s+/).length <= MAX_DATED_REPLY_WORDS ? dueDateIn(reply.text, meetingDate) : null;

/** The one who takes a request on in the next turns, when nobody was called by name. */
const taker = (doc: Document, sentence: Sentence) => replyTo(doc, sentence)?.speaker ?? null;
