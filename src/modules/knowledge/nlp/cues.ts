/**
 * The cue phrases that make a sentence a decision, an action item or a question worth keeping,
 * as readable tables. Patterns are written as plain phrases: a space also lets a filler ("uh",
 * "um") or a comma through, and an apostrophe also matches the spaced-out contractions of
 * transcribed speech ("we 'll", "let 's"). They are global and case-insensitive: use them with
 * `matchAll`, and check the case of a captured name yourself.
 */

const SPACE = String.raw`[\s,]+(?:(?:uh|um|uhm|er|erm)[\s,.]+)*`;

export function cue(phrase: string): RegExp {
  return new RegExp(phrase.replaceAll(' ', SPACE).replaceAll("'", String.raw`\s?['’]`), 'giu');
}

/** Verbs that make a choice when the team says it will do them ("we'll use", "we won't ship"). */
const CHOICE_VERBS =
  '(?:go with|use|stick with|drop|adopt|switch to|skip|postpone|cancel|target|launch|ship|include|keep(?! \\p{L}+ing\\b)|remove|choose|pick|buy|hire)';

/** Words that take back or replace what was decided before. */
export const REVISED = String.raw`(?:on hold|reversed|replaced|overturned|cancelled|canceled|suspended|withdrawn)\b`;

/**
 * A decision stated as it is said. Each cue holds one of the words of items.ts' `MAY_DECIDE`
 * (we, decided, agreed, settled, final, decision, let), which sentences are tested for first.
 */
export const DECISION_CUES: RegExp[] = [
  cue(
    String.raw`\bwe(?: (?:have|'ve|had|'d|all|just|finally|already|eventually|then))* (?:decided|agreed|chose|settled on|opted)\b`,
  ),
  cue(String.raw`\b(?:it|that)(?:'s| is| was| has been)(?: now| then)? (?:decided|agreed|settled|final)\b`),
  cue(String.raw`\b(?:the|our)(?: final)? decision (?:is|was)\b`),
  cue(
    String.raw`\bwe(?:'ve| have)? (?:made|reached|came to|come to) (?:a|an|the|our)(?: final)? (?:decision|agreement|conclusion)\b`,
  ),
  cue(String.raw`\blet's(?: not)? (?:go with|use|stick with|drop|choose|pick)\b`),
  cue(String.raw`\bwe(?:'re| are) (?:going with|going to go with|gonna go with)\b`),
  cue(String.raw`\bwe(?:'re| are) (?:not )?(?:going to|gonna) ${CHOICE_VERBS}\b`),
  cue(String.raw`\bwe(?:'ll| will| shall)(?: not)? ${CHOICE_VERBS}\b`),
  cue(String.raw`\bwe (?:won't|will not|shall not) ${CHOICE_VERBS}\b`),
  // The team choosing as it speaks: "Then we postpone full offline mode." Only verbs that are a
  // choice in the present too: "so we use that funding to…" describes, it does not decide.
  cue(
    String.raw`\b(?:then|so) we (?:go with|stick with|drop|adopt|switch to|skip|postpone|cancel|choose|pick)\b`,
  ),
  cue(String.raw`\bfinal answer is\b`),
  // A decision announced as such: "So, decision: …", "Decision on our side: …", "the decision stands: …".
  cue(String.raw`\bdecision\b[^.:;?!]{0,25}:`),
  // A decision revised: "The earlier decision to keep the checklist is on hold until…"
  cue(String.raw`\b(?:earlier|previous|original|first) decision\b[^.;?!]{0,60}\b${REVISED}`),
];

/**
 * A task taken on by pointing at what was just said: "That is mine, due January 21.", "Daniel owns
 * it, due January 23." The task is the sentence before.
 */
export const TAKES_IT_ON =
  /^\W*(?:that|this|it)(?: one)? (?:is|'s) (?:mine|on me)\b|\b(?:owns?|takes?) (?:it|that|this)\b/i;

/** A sentence that announces the decision said next: "Then the decision changes. Search v2 moves…" */
export const ANNOUNCES_DECISION = /\b(?:the|our) decision (?:changes|has changed|is this|is as follows)\W*$/i;

/** Words before a cue that make it a condition or a report of doubt, not a decision ("if we agreed"). */
export const NOT_DECIDED = /\b(?:if|whether|unless|once|when|before|until|maybe|perhaps)\s+[^,;.]*$/i;

/**
 * Words before a cue that make it a report of a decision taken elsewhere, not one taken now
 * ("goes against what we agreed", "in the first sync we decided…").
 */
export const REPORTED =
  /\b(?:what|which)\s*$|\b(?:in|at|during) (?:the|our|last|that)\b[^.;]*\b(?:sync|meeting|call|review|session)\b[^.;]*$/i;

/** Words before a cue that make it a condition, not a commitment ("if you have to send…"). */
export const CONDITIONAL = /\b(?:if|whether|unless|when)\s+[^,;.]*$/i;

/**
 * Verbs of work someone can go away and do: a commitment to one of these is an action item
 * ("I'll send…"), a commitment to any other ("I'll show you", "I'll be quick") is talk. Verbs
 * that as often do something in the meeting itself ("I'll add one thing", "I'll present the
 * agenda", "I'll change slides") are left out.
 */
export const TASK_VERBS = new Set(
  `send email e-mail mail forward circulate share post publish upload write draft prepare update
  check double-check verify confirm review test fix finish complete deliver submit book schedule
  organise organize arrange set contact call ring ping phone reach follow find look investigate
  research train measure compute calculate estimate collect gather compile document summarise
  summarize implement build design create develop install deploy merge release migrate refactor
  clean sort order buy pay sign approve provide print invite remind coordinate plan produce
  record fill get put handle take talk work ask compare evaluate analyse analyze rewrite redo
  remove replace cancel hire interview negotiate add bring`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Verbs that are a task when a day is named with them ("Daniel owns the release for January 30",
 * "I propose the experiment at the sync on January 22", "Tom adds the panels by February 4", "I
 * will present them at the design review on Thursday") and as often talk without one ("I'll add
 * one thing", "I propose we move on", "I'll present the agenda").
 */
export const DATED_TASK_VERBS = new Set(['add', 'own', 'separate', 'split', 'propose', 'bring', 'present']);

/**
 * A list of actions read out ("Actions: Maya gets back to Sam… I send the notes…"): what follows
 * it in the turn is a task even with no day named.
 */
export const ACTIONS_LISTED = /\baction(?:s| items?)\s*:/i;

/** Verbs whose particle makes them a task (follow up, look into, find out, take care of…). */
export const TASK_PARTICLES: Record<string, RegExp> = {
  reach: /^reach out\b/i,
  follow: /^follow up\b/i,
  look: /^look (?:into|at|up|for)\b/i,
  find: /^find out\b/i,
  set: /^set up\b/i,
  sort: /^sort out\b/i,
  clean: /^clean up\b/i,
  put: /^put together\b/i,
  fill: /^fill in\b/i,
  get: /^get (?:back to|in touch)\b/i,
  take: /^take care of\b/i,
  talk: /^talk (?:to|with)\b/i,
  work: /^work on\b/i,
  ask: /^ask (?:\p{Lu}\p{L}+|the|them|him|her) (?:to|for|about)\b/u,
  add: /^add (?:it|that|this|them) (?:to|in|into)\b/i,
  bring: /^bring (?:it|this|that|them) to (?:the|our|a|next)\b/i,
};

/** How an action item's owner is found. */
export type OwnerRule = 'speaker' | 'named' | 'addressee' | 'none';

export type ActionCue = {
  pattern: RegExp;
  owner: OwnerRule;
  /** A due date must be said too: "I can send…" is an offer unless a day is named. */
  needsDate: boolean;
  /** The words claim a task named before ("That is mine, due January 21"): no verb to check. */
  claims?: true;
};

const ADVERBS =
  '(?: (?:also|just|then|definitely|quickly|first|personally|please|maybe|go and|make sure to|try to|be able to))*';
const NAME = String.raw`(?<owner>\p{Lu}[\p{L}\x27-]+)`;

/** Each `verb` group must be a task verb; an `owner` group names the owner. */
export const ACTION_CUES: ActionCue[] = [
  {
    pattern: cue(
      String.raw`\bI(?:'ll| will| shall|'m going to| am going to|'m gonna| am gonna)${ADVERBS} (?<verb>\p{L}+)`,
    ),
    owner: 'speaker',
    needsDate: false,
  },
  {
    pattern: cue(
      String.raw`\bI(?: can| could|'d be happy to|'m happy to| am happy to)${ADVERBS} (?<verb>\p{L}+)`,
    ),
    owner: 'speaker',
    needsDate: true,
  },
  {
    pattern: cue(
      String.raw`\b${NAME}(?:'ll| will| is going to| is gonna| has to| needs to| is to)${ADVERBS} (?<verb>\p{L}+)`,
    ),
    owner: 'named',
    needsDate: false,
  },
  {
    // "Daniel prepares the night batch job by January 23": a name, a task verb in the present, a day.
    pattern: cue(String.raw`\b${NAME}${ADVERBS} (?<verb>\p{L}+s)\b`),
    owner: 'named',
    needsDate: true,
  },
  {
    // Actions read out in the first person: "I update the roadmap … by Wednesday January 14."
    // "Can I propose…" asks leave to do something in the meeting.
    pattern: cue(
      String.raw`(?<!\b(?:can|could|may|might|shall|should|would|do|did) )\bI${ADVERBS} (?<verb>\p{L}+)\b`,
    ),
    owner: 'speaker',
    needsDate: true,
  },
  {
    // "Two: a lock panel and an alert. That is mine, due January 21."
    pattern: cue(String.raw`\b(?:that|this|it)(?:'s| is) mine\b`),
    owner: 'speaker',
    needsDate: true,
    claims: true,
  },
  {
    pattern: cue(String.raw`\blet's make sure(?: that)? ${NAME} (?<verb>\p{L}+)`),
    owner: 'named',
    needsDate: false,
  },
  {
    pattern: cue(String.raw`\b(?:can|could|would|will) you${ADVERBS} (?<verb>\p{L}+)`),
    owner: 'addressee',
    needsDate: false,
  },
  {
    pattern: cue(String.raw`\byou(?:'ll| will)? (?:have|need|'ve got|have got) to${ADVERBS} (?<verb>\p{L}+)`),
    owner: 'none',
    needsDate: false,
  },
  {
    pattern: cue(
      String.raw`\b(?:we|someone|somebody)(?: (?:need|needs|have|has|must|'ll have|will have|'ve got|have got))? to${ADVERBS} (?<verb>\p{L}+)`,
    ),
    owner: 'none',
    needsDate: true,
  },
  {
    pattern: cue(
      String.raw`\baction items?(?: for ${NAME})?[:,\s-]+(?:(?<assignee>\p{Lu}[\p{L}\x27-]+) to )?(?<verb>\p{L}+)`,
    ),
    owner: 'named',
    needsDate: false,
  },
];

/** A reply that takes on a request ("Sure.", "Will do.", "I can do that"). */
export const ACCEPTS =
  /^\W*(?:sure|yes|yeah|yep|okay|ok|will do|no problem|of course|absolutely|fine|i can|i will|i'll)\b/i;

/**
 * A reply that leaves a question open: not known yet, to be checked or decided later, kept on the
 * list ("Good question and I do not know yet.", "Let us log it as an open question", "I believe
 * yes, but I will confirm with engineering").
 */
export const DEFERS =
  /\b(?:(?:do|did) not know|don't know|didn't know|dunno|not sure|no idea|noted as open|(?:keep|leave) (?:that|it|this) open|as (?:an )?open (?:question|item)|(?:decide|discuss|settle) (?:that|it|this) (?:next|later|another)|(?:will|i'll|we'll) (?:confirm|check|find out|get back|come back)|need to (?:check|confirm|find out)|let (?:us|me|'s) (?:measure|check|find out|think about)|(?:log|put|note|add) (?:it|that|this) (?:as|in|on|to)\b)/i;

/**
 * Tags that turn a statement into a question only in form ("…, right?", "…, haven't we?"): the
 * speaker expects no answer.
 */
export const QUESTION_TAGS =
  /[,\s](?:right|you know|okay|ok|alright|all right|yeah|eh|no|yes|huh|correct|see|(?:\w+n't|is|are|was|were|do|does|did|have|has|had|will|would|can|could|should|shall) (?:it|we|you|they|he|she|that|there|i))\s*\?$/i;

/** Questions that run the meeting rather than ask about its subject. */
export const PROCEDURAL_QUESTIONS = [
  /\b(?:shall|should|can|could) we (?:move on|go on|start|begin|continue|stop|finish|wrap up|break|go to)\b/i,
  /\b(?:can|could|may|shall) I (?:just )?(?:thank|welcome|come in|come back|interrupt|add|say|go|start|begin|propose|take this)\b/i,
  /\b(?:any|anything|anyone|anybody) (?:other |more |else )*(?:questions?|comments?|else)\b/i,
  /\b(?:does that make sense|is that (?:ok|okay|alright|clear|right|fine)|are we (?:ready|done|all set)|can you (?:hear|see) me)\b/i,
  /\b(?:you want to|do you want to go|who wants to go|who's next|your turn)\b/i,
  /\b(?:declarations? of interest|introduce (?:yourselves|yourself|your officials)|for the record|in private|a (?:little )?(?:bit of a )?break)\b/i,
];
