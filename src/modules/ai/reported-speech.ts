import { ASSENT_WORDS, OPENER_WORDS, QUALIFIERS, STANCE_WORDS, withoutOpeners } from './sentences.ts';

/**
 * What was said, written as a person writing up a meeting reports it: "I think we'll keep the
 * grey case" said by Marketing becomes "Marketing thought they would keep the grey case". The
 * speaker's first person becomes the third (a singular "they" for "I": the transcript does not
 * say who is a he or a she; "mine" the speaker's name, when known) and the present moves one
 * tense back — "is" to "was", "will" to "would", and a verb said right after its subject ("we
 * need") to its past. Pure word replacement, no parsing: a verb is moved back only right after a
 * subject that does not follow an auxiliary ("could we expect" stays), so an infinitive ("to go")
 * never changes. Citations still quote the transcript verbatim. Measured on QMSum
 * (docs/ai-quality.md): reference answers are written this way, and answers written so score
 * higher against them.
 */

/** The speaker's own person, as the third. */
const PERSON: Record<string, string> = {
  i: 'they',
  me: 'them',
  my: 'their',
  mine: 'theirs',
  myself: 'themselves',
  "i'm": 'they were',
  "i've": 'they had',
  "i'll": 'they would',
  "i'd": 'they would',
  we: 'they',
  us: 'them',
  our: 'their',
  ours: 'theirs',
  ourselves: 'themselves',
  "we're": 'they were',
  "we've": 'they had',
  "we'll": 'they would',
  "we'd": 'they would',
  "let's": 'they should',
};

/** The speaker's own person as the third, in the tense said (after a label). */
const PERSON_NOW: Record<string, string> = {
  ...PERSON,
  "i'm": "they're",
  "i've": "they've",
  "i'll": "they'll",
  "i'd": "they'd",
  "we're": "they're",
  "we've": "they've",
  "we'll": "they'll",
  "we'd": "they'd",
};

/** Present forms that are past wherever they stand. */
const BACKSHIFT: Record<string, string> = {
  is: 'was',
  am: 'was',
  are: 'were',
  will: 'would',
  can: 'could',
  does: 'did',
  has: 'had',
  shall: 'should',
  "isn't": "wasn't",
  "aren't": "weren't",
  "don't": "didn't",
  "doesn't": "didn't",
  "won't": "wouldn't",
  "can't": "couldn't",
  "haven't": "hadn't",
  "hasn't": "hadn't",
  "it's": 'it was',
  "that's": 'that was',
  "there's": 'there was',
  "what's": 'what was',
  "here's": 'here was',
  "who's": 'who was',
  "where's": 'where was',
  "he's": 'he was',
  "she's": 'she was',
  "they're": 'they were',
  "you're": 'you were',
  "they've": 'they had',
  "you've": 'you had',
  "they'll": 'they would',
  "you'll": 'you would',
  "it'll": 'it would',
  "that'll": 'that would',
  "there'll": 'there would',
};

/**
 * Subjects whose verb, said right after them, is in the present's base form. Not "you": "you
 * know" and "you see" hold the floor more often than they say what someone knows.
 */
const SUBJECTS = new Set(['i', 'we', 'they']);
/** Auxiliaries before a subject that make its verb a question's base form ("do we need", "could we expect"). */
const INVERTING = new Set(
  'do does did can could will would should shall may might must was were is are had have has'.split(' '),
);
/** Common verbs and their past: moved back only right after a subject ("we pick" → "they picked"). */
const PAST_AFTER_SUBJECT: Record<string, string> = {
  add: 'added',
  agree: 'agreed',
  ask: 'asked',
  assume: 'assumed',
  believe: 'believed',
  build: 'built',
  buy: 'bought',
  call: 'called',
  change: 'changed',
  check: 'checked',
  choose: 'chose',
  come: 'came',
  decide: 'decided',
  disagree: 'disagreed',
  discuss: 'discussed',
  do: 'did',
  drop: 'dropped',
  expect: 'expected',
  feel: 'felt',
  find: 'found',
  fix: 'fixed',
  get: 'got',
  give: 'gave',
  go: 'went',
  guess: 'guessed',
  have: 'had',
  hope: 'hoped',
  keep: 'kept',
  know: 'knew',
  like: 'liked',
  look: 'looked',
  make: 'made',
  mean: 'meant',
  meet: 'met',
  move: 'moved',
  need: 'needed',
  order: 'ordered',
  pay: 'paid',
  pick: 'picked',
  plan: 'planned',
  prefer: 'preferred',
  propose: 'proposed',
  recommend: 'recommended',
  remember: 'remembered',
  run: 'ran',
  say: 'said',
  see: 'saw',
  seem: 'seemed',
  send: 'sent',
  ship: 'shipped',
  start: 'started',
  stop: 'stopped',
  suggest: 'suggested',
  take: 'took',
  talk: 'talked',
  tell: 'told',
  test: 'tested',
  think: 'thought',
  try: 'tried',
  understand: 'understood',
  use: 'used',
  want: 'wanted',
  watch: 'watched',
  work: 'worked',
  write: 'wrote',
};
/**
 * "Let us…" proposes and "Let me…" offers, where a clause opens with it: reported as what they
 * should or would do ("Let us keep that as a candidate" → "they should keep that as a
 * candidate"); word by word it would read "Let them keep…". Not "could you let me know".
 */
const PROPOSAL = /(^|[.?!;:,]\s+|\b(?:so|okay|ok|well|now|then|and|but)\s+)let (us|me)\b/gi;
const proposed = (sentence: string) =>
  sentence.replace(
    PROPOSAL,
    (_, opening: string, person: string) =>
      `${opening}${person.toLowerCase() === 'us' ? 'they should' : 'they would'}`,
  );

/** "I am", "I was" are "they were" once "I" is "they" (not "they was"). */
const AFTER_I: Record<string, string> = { am: 'were', was: 'were', "wasn't": "weren't" };
/** The same in the tense said: "I am" is "they are". */
const AFTER_I_NOW: Record<string, string> = { am: 'are', was: 'were', "wasn't": "weren't" };

/**
 * A sentence that opens with its label, as notes are written ("So, decision: the batch does not
 * start before the lock alert is live", "Root cause, then: …"): what follows the colon stands as
 * stated, in its tense — moved back it would read as done ("the batch did not start").
 */
/** Words a label may follow: "So, decision: …", "Agreed. Actions: …". */
const LABEL_OPENERS = 'so|and|okay|ok|well|then|now|right|good|fine|great|sure|fair|agreed';
/**
 * What a label is not: a clause with its subject or verb ("But you're right: it does make it more
 * challenging" says something, and is reported as said).
 */
const NO_CLAUSE = String.raw`(?![^.?!:]*\b(?:i|you|we|they|he|she|it|is|are|was|were|am)\b)`;
/** The start of a sentence up to its label, past the words a label may follow. */
const BEFORE_LABEL = String.raw`^\W*(?:(?:${LABEL_OPENERS})\b[,.!\s]*)*`;
const LABEL_OPENING = new RegExp(`${BEFORE_LABEL}${NO_CLAUSE}\\p{L}[^.?!:]{0,40}:\\s`, 'iu');

/**
 * A label said as a sentence of its own ("Actions. I write up the findings…", "Fine. Actions
 * then. I update…", "First finding. Of the twenty admins…"): written as the label it is,
 * "Actions: I write up…".
 */
const BARE_LABEL = new RegExp(
  `^(?:(?:${LABEL_OPENERS})[,.!]?\\s+)*(actions?|action items|next steps|decisions?|(?:(?:first|second|third|fourth|last|another|one) )?findings?)(?:,? then)?\\.\\s+(?=\\p{L})`,
  'iu',
);

/** The speaker named beside someone else: "Priya and I", "Tom and me" (and "I was", said of the two). */
const NAMED_WITH_ME = /(\p{Lu}\p{L}+) and (?:I|me)\b( was\b)?/gu;

/** A sentence with its bare label written as one ("Actions. I write…" → "Actions: I write…"). */
const withLabel = (said: string) =>
  said.replace(
    BARE_LABEL,
    (_, label: string) => `${label.charAt(0).toUpperCase()}${label.slice(1).toLowerCase()}: `,
  );

/**
 * Whether a sentence states what it is after a label ("Decision: we announce it…"): it keeps its
 * tense, and so do the sentences of its turn that go on with it.
 */
export const statesLabel = (said: string) => LABEL_OPENING.test(withLabel(said));

/** How tasks are labelled: "Actions", "Next steps", "To-dos". */
const TASK_LABELS = 'actions?|action items|next steps|to-?dos|tasks|follow-?ups';
/** A label of tasks: "Actions: …", "Next steps, then: …" (after `withLabel`). */
const TASK_LABEL = new RegExp(`${BEFORE_LABEL}(?:${TASK_LABELS})(?:,? then)?:\\s`, 'iu');

/**
 * Whether a sentence lists tasks after their label ("Actions: Maya gets back to Sam by February
 * 3."): the tasks it goes on with in its turn are plans, in the present however they are quoted
 * ("I send the notes when it is out" is not "they sent").
 */
export const statesTasks = (said: string) => TASK_LABEL.test(withLabel(said));

/**
 * A time to come, said with a verb in the present: a plan ("We meet again on Monday at ten",
 * "I send it tomorrow"), reported as what they would do, not as done ("they met again on Monday").
 */
const PLANNED =
  /\b(?:tomorrow|tonight|next (?:week|month|year|time|meeting|sync|sprint|quarter)|later today|this (?:afternoon|evening)|(?:on|by|until) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|by (?:january|february|march|april|may|june|july|august|september|october|november|december) \d{1,2}\b|by the end of)/i;

/** Verbs of a state of mind or of having: "we think on Friday it ships" plans nothing. */
const STATIVE = new Set(
  'agree assume believe disagree expect feel guess have hope know like mean need prefer remember seem think understand want'.split(
    ' ',
  ),
);

/** A common verb said right after its subject, one tense back: past, or "would" for a planned act. */
const movedBack = (verb: string, planned: boolean) => {
  const past = PAST_AFTER_SUBJECT[verb];
  return past && planned && !STATIVE.has(verb) ? `would ${verb}` : past;
};

/** Two pronouns of the speaker's that both became "they" ("we I just did…"). */
const SAID_TWICE = /\b(they|them|their)\s+\1\b/gi;

/**
 * A sentence's words moved to the third person and one tense back (but after a label, or going on
 * after one in its turn (`continuesLabel`): see `LABEL_OPENING`); its first letter a capital.
 * "Decision: we announce it. Lena writes the changelog text, Priya does the tooltip." is what
 * they decided, not "Priya did the tooltip".
 */
export function reportedSpeech(said: string, speaker?: string | null, continuesLabel = false): string {
  const labelled = withLabel(said);
  // "Priya and I" → "Priya and Maya Chen": "Priya and they" names no one.
  const sentence = speaker
    ? labelled.replace(
        NAMED_WITH_ME,
        (_, name: string, was?: string) => `${name} and ${speaker}${was ? ' were' : ''}`,
      )
    : labelled;
  let previous = '';
  let beforePrevious = '';
  const keepsTense = continuesLabel || LABEL_OPENING.test(sentence);
  const planned = PLANNED.test(sentence);
  const shifted = proposed(sentence).replace(/[A-Za-z]+(?:['’][a-z]+)?/g, (word) => {
    const lower = word.toLowerCase().replace('’', "'");
    const afterSubject = SUBJECTS.has(previous) && !INVERTING.has(beforePrevious);
    const afterI = previous === 'i';
    beforePrevious = previous;
    previous = lower;
    // "US", "OK": an acronym is not a pronoun.
    if (word.length > 1 && word === word.toUpperCase()) return word;
    // "That is mine" → "That was Maya's": "theirs" would read as someone else's.
    if (lower === 'mine' && speaker) return `${speaker}'s`;
    if (keepsTense) return PERSON_NOW[lower] ?? (afterI ? AFTER_I_NOW[lower] : undefined) ?? word;
    return (
      PERSON[lower] ??
      (afterI ? AFTER_I[lower] : undefined) ??
      BACKSHIFT[lower] ??
      (afterSubject ? movedBack(lower, planned) : undefined) ??
      word
    );
  });
  // "I" became "they": a sentence it opened still opens with a capital; "we I just did" is not
  // "they they just did".
  const capitalised = shifted
    .replace(SAID_TWICE, '$1')
    .replace(/([.?!]["')]?\s+)([a-z])/g, (_, end: string, letter: string) => end + letter.toUpperCase());
  return capitalised.charAt(0).toUpperCase() + capitalised.slice(1);
}

/** The verb a question asks what was said with, first match first: "What did X think" is answered "X thought …". */
const QUESTION_VERBS: Array<[RegExp, string]> = [
  [/\b(think|thought|opinion|feel|felt|view)\b/i, 'thought'],
  [/\bsuggest/i, 'suggested'],
  [/\bpropos/i, 'proposed'],
  [/\brecommend/i, 'recommended'],
];

/** Every verb an answer introduces a speaker with ("X asked: …?" for a question). */
export const REPORTING_VERBS = [...QUESTION_VERBS.map(([, verb]) => verb), 'said', 'asked:'];

/** How the question asks what was said: "What did X think" is answered "X thought …". */
export const reportingVerb = (question: string): string =>
  QUESTION_VERBS.find(([asks]) => asks.test(question))?.[1] ?? 'said';

/**
 * Words that open a turn without saying anything once someone is named as saying it: the openers
 * tidySpeech drops, and those it keeps because they can carry a sentence ("So…", "Good.").
 */
const TURN_OPENERS = new RegExp(
  `^(?:(?:(?:${OPENER_WORDS}|so|and so|and|um|uh|mm+|hmm+|now)\\b[,.?!]?|(?:good|fine|great|sure|agreed)[,.!])\\s+)+`,
  'i',
);
/** Where the speaker stands, then a qualification ("Agreed, but keep it short."): said as said. */
const QUALIFIED_STANCE = new RegExp(`^(?:${STANCE_WORDS}),\\s+(?:${QUALIFIERS})\\b`, 'i');
/**
 * "they thought" opening what someone thought: the reporting verb says it already. A "that" after
 * it stays: it may be the subject ("I think that's up to the designer").
 */
const OWN_VERB = /^they (?:thought|guessed|felt|believed),?\s+/i;
/** An answer that says yes ("Yes, by Friday."). */
const ASSENT = new RegExp(`^(?:${ASSENT_WORDS})\\b`, 'i');
/**
 * Words that open a sentence and are written in lower case after the speaker's name. Any other
 * first word keeps its capital: it may be a name ("Maya said Northwind renews…").
 */
const COMMON_OPENING = new RegExp(
  `^(?:they|them|their|it|its|that|this|these|those|there|here|the|a|an|you|your|he|she|his|her|what|which|who|how|why|where|when|but|because|if|so|or|in|on|for|at|to|with|of|from|by|as|not|no|${ASSENT_WORDS}|nobody|nothing|everyone|everybody|everything|someone|somebody|something|none|just|maybe|perhaps|also|all|some|one|any|every|each|more|most|then|actually|basically|probably|really|obviously|was|were|would|could|should|might|had|did|only|even|still|anyway|otherwise|first|after|before|about|again|another|both|either|neither)\\b`,
);

/** A word written in lower case. */
const LOWER_CASE_WORD = /(?<!\p{L})\p{Ll}+(?!\p{L})/gu;
/** A capitalised word inside a sentence, after another word: a name ("we told Northwind"). */
const NAME_INSIDE = /(?<=[\p{L}\d,;]\s+)\p{Lu}\p{L}*/gu;

/**
 * How the sources write words, for `introduced`: a word they write in lower case somewhere is no
 * name; a capital they write inside a sentence, or a word of a speaker's name, is one.
 */
export function sourceWords(texts: string[], speakers: string[]) {
  const lowerCase = new Set(texts.flatMap((text) => text.match(LOWER_CASE_WORD) ?? []));
  const names = new Set([
    ...texts.flatMap((text) => text.match(NAME_INSIDE) ?? []),
    ...speakers.flatMap((name) => name.split(/\s+/)),
  ]);
  return { lowerCase: (word: string) => lowerCase.has(word), isName: (word: string) => names.has(word) };
}

/**
 * A question's label: "Open question from me:", "Another question:", "Open question I would like
 * on the list:".
 */
const QUESTION_LABEL =
  /^(?:(?:another|one|an?|my|our|their|the)\s+)?(?:(?:open|last|quick|final|related|follow-up)\s+)?question\b[^:?.!]{0,40}:\s+(?=\S)/iu;

/**
 * A reported sentence introduced by who said it: "Marketing thought the case was too dear.",
 * a question as "Marketing asked: Was the case too dear?". `lowerCase` tells a first word that is
 * written in lower case elsewhere (so not a name): "Lena said feedback goes to support".
 */
export function introduced(
  speaker: string,
  verb: string,
  sentence: string,
  words: { lowerCase?: (word: string) => boolean; isName?: (word: string) => boolean } = {},
): string {
  const { lowerCase = () => false, isName = () => true } = words;
  // "But…" opens what goes against something the answer does not quote.
  const body = withoutOpeners(sentence, TURN_OPENERS).replace(/^but,?\s+(?=\S)/i, '') || sentence;
  // What opens with a question asks it, whatever follows: "Was that okay? Because…" was not said
  // "said was that okay?". "Asked" says it is a question: its label goes ("Open question from
  // me: what happens…?" → "Tom asked: What happens…?", not "asked: Open question from them: …").
  const asks = /^[^.?!]*\?["')]?(?:\s|$)/.test(body);
  const stated = asks ? body.replace(QUESTION_LABEL, '') : body;
  const capitalised = stated.charAt(0).toUpperCase() + stated.slice(1);
  if (asks) return `${speaker} asked: ${capitalised}`;
  // A sentence that opens with its own label ("Root cause, then: …") is reported after a colon; a
  // label states, whatever the question asked them to think: not "Daniel thought: Decision, then: …".
  if (LABEL_OPENING.test(capitalised)) return `${speaker} said: ${capitalised}`;
  if (QUALIFIED_STANCE.test(body)) return `${speaker} said: ${capitalised}`;
  const own = body.match(OWN_VERB);
  const rest = own ? body.slice(own[0].length) : body;
  const first = rest.match(/^\p{L}+/u)?.[0] ?? '';
  // A lone letter ("D.", "B") is a name or an abbreviation whatever else is written.
  const opening =
    COMMON_OPENING.test(rest.toLowerCase()) || (first.length > 1 && lowerCase(first.toLowerCase()))
      ? rest.charAt(0).toLowerCase() + rest.slice(1)
      : rest;
  // "Yes, by Friday." is said, whatever the question asked them to think or propose.
  const said = ASSENT.test(opening) ? 'said' : verb;
  if (own) return `${speaker} thought ${opening}`;
  // A capital that is no name's opens what they said after a colon: "Maya said: Noted as open.",
  // not "Maya said Noted as open."; a name reads on ("Maya said Daniel owns it").
  const keptCapital = first.length > 1 && /^\p{Lu}/u.test(opening) && !isName(first);
  return `${speaker} ${said}${keptCapital ? ':' : ''} ${opening}`;
}
