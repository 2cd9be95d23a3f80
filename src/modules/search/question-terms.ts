import type { QuestionWeights } from './stretches.ts';

/**
 * How a question's words are weighed before ranking turns. Pure: stemming is PostgreSQL's
 * (`to_tsvector('english', …)`), done by the caller. Measured on QMSum (docs/ai-quality.md):
 * down-weighting framing words and reading named speakers as a filter moved citation hit@5 from
 * 0.78 to 0.81; word associations learned from co-occurrence did not move it and are not used.
 */

/**
 * Words that say how a question is asked about a meeting ("what did they discuss", "summarize",
 * "what did X think") rather than what it is about: kept, but light, since "what constitutes a
 * meeting" is about meetings.
 */
export const FRAMING_WORDS =
  'summarize summary discuss discussion talk talking think thought say said mention opinion elaborate agree disagree group meeting team';
/** Framing words that say what someone did when "who" did it ("Who disagreed with Maya?"). */
const STANCE_WORDS = /\b(?:agree|disagree)\b/g;

/** Auxiliaries after which the subject comes: "Who did Maya ask?" asks about Maya. */
const AUXILIARY = /^(?:do|does|did|will|would|can|could|shall|should|may|might|must)$/;
/** Auxiliaries that keep "who" the subject when a participle follows ("Who has disagreed…"). */
const BEFORE_PARTICIPLE = /^(?:is|are|was|were|has|have|had)$/;

/**
 * Whether "who" is the subject of the question ("Who disagreed with Maya?", "Who is working with
 * Tom?"; not "Who did Maya ask?" nor "Who is Sam?"): the answer is someone else than the people it
 * names, who are those replied to.
 */
export function asksWhoDid(question: string): boolean {
  const [who, verb = '', next = ''] = question.trim().toLowerCase().split(/\s+/);
  if (who !== 'who' || AUXILIARY.test(verb)) return false;
  return !BEFORE_PARTICIPLE.test(verb) || /\p{L}(?:ing|ed|en)$/u.test(next);
}

/**
 * The framing words of a question (to be stemmed): all of them, but for agreeing and disagreeing
 * when "who" did it, which is then what it asks.
 */
export const framingWordsOf = (question: string) =>
  asksWhoDid(question) ? FRAMING_WORDS.replace(STANCE_WORDS, '') : FRAMING_WORDS;
export const FRAMING_WEIGHT = 0.2;

/** The words a question names as its matter: up to three after "about", "regarding" or "concerning". */
const FOCUS = /\b(?:about|regarding|concerning)\s+(?:(?:the|a|an)\s+)?((?:[\p{L}\p{N}'’-]+\s*){1,3})/iu;
/**
 * What the question's other content words weigh when it names its matter so: "What did the group
 * discuss about the buttons when talking about the functions?" is answered where the buttons are
 * discussed (QMSum, in process: 0.828 → 0.836). The matter is not made heavier instead: the words
 * a question's kind adds ("decision") would weigh less beside it.
 */
const BESIDE_FOCUS_WEIGHT = 0.5;
/** The words (to be stemmed) a question names as what it is about, or "" when it names none so. */
export const focusWordsOf = (question: string) => question.match(FOCUS)?.[1]?.trim() ?? '';
/**
 * What a question's kind asks for, beyond its words: where a "why" is answered a cause is given,
 * where "how was it detected" a page, an alert or a dashboard is said, where "what did we
 * learn…" a finding is stated, where a "how long" is answered a duration,
 * where "what did we decide" a decision is stated, where "who owns…" someone takes a task on,
 * where "when…" a day or a time is said, where "what are the open questions…" a question is
 * asked, where "what are the next steps…" a task is taken on, where "what does it measure" what
 * success means is said.
 * `cues` are stemmed words retrieval adds (they count only where the question's own words are
 * said: stretches.ts); `light` are the question's words that only say its kind ("long" in "how
 * long"; "decide", which is not "decision" to the stemmer). How a sentence answers each kind is
 * the answer engine's to tell (local-engine.ts). ("because" and "since" are stop words of the
 * english configuration.)
 */
export type AnswerKind = {
  name:
    | 'cause'
    | 'detection'
    | 'finding'
    | 'duration'
    | 'decision'
    | 'owner'
    | 'time'
    | 'open question'
    | 'action'
    | 'measure';
  asks: RegExp;
  cues: string[];
  light: string[];
};
/** How a question names the tasks it asks for: "action items", "next steps", "to-dos", "follow-ups". */
export const TASK_LISTS = 'action items?|next steps?|to-?dos?|follow[- ]ups?';
/** "decide", "decision", "agree", "settle": how a question asks for a decision, not what about. */
const DECISION_STEMS = ['decid', 'decis', 'agre', 'settl', 'conclud', 'conclus'];
const ANSWER_KINDS: AnswerKind[] = [
  {
    name: 'cause',
    // "Why…", and "What was the root cause of…", "What caused…", "the reasons for…", "How did the
    // outage start?", "What was the problem with…", "What went wrong with…".
    asks: /^\W*why\b|\b(?:what|which) (?:was|were|is|are) the (?:main |real )?(?:root )?(?:causes?|reasons?)\b|\bwhat caused\b|\bfor what reason\b|\bhow come\b|^\W*how did\b[^?]*\b(?:start|begin|happen)\b|^\W*what(?:'s| is| was| were| are) the (?:main |real |biggest )?(?:problems?|issues?|trouble) with\b|^\W*what (?:went|goes|is|was) wrong\b|^\W*what's wrong\b/i,
    cues: ['caus', 'reason', 'root', 'due'],
    light: ['problem', 'issu', 'troubl', 'wrong', 'went'],
  },
  {
    // "How was the outage detected?", "How did we notice…", "How did we find out about…", "Who
    // spotted it?": how a problem came to light — a page, an alert, a dashboard, a customer. Not
    // "How do we detect…", which asks for a design.
    name: 'detection',
    asks: /^\W*how (?:was|were|did) (?:\w+ ){0,5}(?:detected|detect|noticed|notice|discovered|discover|spotted|spot|caught|catch|found out|find out)\b|^\W*who (?:noticed|spotted|caught|discovered|detected|found)\b/i,
    cues: ['page', 'alert', 'alarm', 'notic', 'dashboard', 'monitor'],
    light: ['detect', 'notic', 'discov', 'spot', 'caught', 'catch', 'found', 'find'],
  },
  {
    // "What did we learn from the outage?", "What lessons did we learn…", "What did Priya find in
    // the session recordings?", "the findings of…": what a review or a study found.
    name: 'finding',
    asks: /\bwhat (?:\w+ )?(?:did|do|have|has) (?:\w+ ){1,3}(?:find|found|learn|learned|discover|discovered|notice|noticed)\b|\b(?:findings|lessons learned|takeaways)\b/i,
    cues: ['find', 'root', 'caus', 'factor'],
    light: ['find', 'learn', 'discov', 'notic', 'lesson', 'takeaway'],
  },
  {
    name: 'duration',
    asks: /^\W*how long\b/i,
    cues: ['second', 'minut', 'hour', 'day', 'week', 'month', 'year', 'last', 'took'],
    light: ['long'],
  },
  {
    name: 'decision',
    asks: /\b(decide|decides|decided|deciding|decision|decisions|agree|agreed|settle|settled|conclude|concluded|conclusion|conclusions)\b/i,
    // "agreed" and "settled" also say an opinion or a list ("three things settled"): not cues.
    cues: ['decid', 'decis'],
    light: DECISION_STEMS,
  },
  {
    // "Who owns the lock alert?", "Who is responsible for…", "Who will collect…", "Who is working
    // on…": a task's owner.
    name: 'owner',
    asks: /^\W*who(?:'s|\s+is|\s+are|\s+was)?\s+(?:owns?|owned|responsible|in charge|taking|handling|doing|writing|preparing|leading|driving|going to|will|should|takes|handles|does|prepares|writes|leads|drives|works? on|working on|looking into|assigned)\b/i,
    // "mine", "owns": said everywhere ("I will…" is in every meeting), so retrieval adds none.
    cues: [],
    light: ['own', 'owner', 'respons', 'charg', 'work', 'assign'],
  },
  {
    // "When is the changelog entry due?", "What is the deadline for…", "By when…"; not "When
    // discussing the design, what did…", which says when it was said.
    name: 'time',
    asks: /^\W*(?:by |until |since )?when\b(?!\s+\w+ing\b)|\bwhat (?:is|was|are|were) the (?:date|day|deadline|due date)\b/i,
    // Days and times are said in numbers and names, not in words a question shares.
    cues: [],
    light: ['date', 'day', 'deadlin', 'due'],
  },
  {
    name: 'open question',
    asks: /\b(?:open|unanswered|unresolved|outstanding) questions?\b/i,
    cues: [],
    light: ['open', 'question', 'unansw', 'unresolv', 'outstand'],
  },
  {
    // "What are the next steps for the job queue?", "Action items about the checklist?"; not
    // "individual task assignment", which is a matter.
    name: 'action',
    asks: new RegExp(`\\b(?:${TASK_LISTS})\\b|\\bwhat (?:are|were) the (?:open |remaining )?tasks\\b`, 'i'),
    cues: [],
    light: ['action', 'item', 'next', 'step', 'todo', 'to-do', 'follow', 'follow-up', 'task'],
  },
  {
    // "What does the experiment measure?", "How will we know if the experiment worked?", "What
    // are the success criteria for…": how success is measured ("Success means more workspaces…").
    name: 'measure',
    asks: /\bwhat (?:does|did|will|would|do|should) (?:\w+ ){1,4}(?:measure|track)\b|\bhow (?:will|would|do|does|did|can|should|could) (?:\w+ ){1,3}(?:measure|judge|evaluate|know) (?:if|whether|success)\b|\bsuccess (?:metrics?|criteria|measures?)\b|\bwhat (?:is|was|are|were) the (?:\w+ )?(?:metrics?|criteria|kpis?)\b/i,
    cues: ['success', 'metric', 'measur'],
    light: [
      'measur',
      'track',
      'metric',
      'criteria',
      'criterion',
      'kpi',
      'success',
      'know',
      'work',
      'judg',
      'evalu',
    ],
  },
];
const CUE_WEIGHT = 1;

/**
 * Whether a search is typed as a question ("Why did search go down?", "Summarize the discussion
 * on…") rather than as words to find ("feature flag"): its moments open where it is answered, which
 * is after the words that raise it (stretches.ts). 1,093 of QMSum's 1,095 questions read so.
 */
export const asksQuestion = (query: string) =>
  /^\W*(what|why|how|who|whom|whose|when|where|which|did|does|do|is|are|was|were|can|could|should|would|will|has|have|had|summari[sz]e|describe|explain)\b|\?\s*$/i.test(
    query,
  );

/**
 * The kind of answer a question asks for, when it asks for more than its words say. Words searched
 * for as words have none: a search for "decision" wants the word.
 */
export const answerKind = (question: string) =>
  asksQuestion(question) ? ANSWER_KINDS.find((kind) => kind.asks.test(question)) : undefined;

/** The stemmed words a question's kind adds to what it asks for ("cause" for a "why"…). */
export const cueWords = (question: string) => answerKind(question)?.cues ?? [];
/** A word that names a speaker ("Marketing", "the professor") is rarely said: it selects their turns instead. */
const SPEAKER_WORD_WEIGHT = 0.3;

/** A speaker of the scope, with their name's stemmed words. */
export type SpeakerName = { name: string; lexemes: string[] };

/**
 * The speakers a question names: every stemmed word of two letters or more of their name is in
 * the question ("What did the Project Manager think" names "Project Manager"; "the professor"
 * names "Professor B"), their name ends with a capital letter the question uses on its own
 * ("What did F think" names "Grad F"), or their first name is written in the question as no other
 * speaker's name starts ("What did Sam say about SAML?" names "Sam Whitfield"; not as the
 * question's first word — "Will the launch slip?" names no "Will Smith" — nor followed by another
 * surname).
 */
export function namedSpeakers<Speaker extends SpeakerName>(
  question: string,
  lexemes: Set<string>,
  speakers: Speaker[],
): Speaker[] {
  const letters = new Set(question.match(/\b\p{Lu}\b/gu) ?? []);
  // The question's words as written, without punctuation or "'s".
  const words = question
    .trim()
    .split(/\s+/)
    .map((word) =>
      word
        .replace(/\P{L}+$/u, '')
        .replace(/['’]s$/u, '')
        .replace(/^\P{L}+/u, ''),
    );
  const writtenAsName = (first: string, rest: string[]) =>
    words.some(
      (word, at) =>
        at > 0 &&
        word === first &&
        // "John Williamson" does not name "John Griffiths".
        (!/^\p{Lu}/u.test(words[at + 1] ?? '') || words[at + 1] === rest[0]),
    );
  const names = speakers.map((speaker) => speaker.name.trim().split(/\s+/));
  const firstNameCount = new Map<string, number>();
  for (const [first] of names) if (first) firstNameCount.set(first, (firstNameCount.get(first) ?? 0) + 1);
  return speakers.filter((speaker, at) => {
    const nameWords = names[at] ?? [];
    const [first = '', ...rest] = nameWords;
    const last = nameWords.at(-1) ?? '';
    if (/^\p{Lu}$/u.test(last) && letters.has(last)) return true;
    if (
      rest.length > 0 &&
      /^\p{Lu}\p{Ll}+$/u.test(first) &&
      writtenAsName(first, rest) &&
      firstNameCount.get(first) === 1
    )
      return true;
    const stems = speaker.lexemes.filter((lexeme) => lexeme.length >= 2);
    return stems.length > 0 && stems.every((lexeme) => lexemes.has(lexeme));
  });
}

/**
 * Each word's weight: its idf in the scope (`idf`), light for framing words and for words that
 * name a speaker; and the speakers named, whose turns count more.
 */
export function questionWeights(input: {
  question: string;
  lexemes: string[];
  framing: Set<string>;
  /** The stemmed words the question names as its matter (focusWordsOf). */
  focus?: Set<string>;
  speakers: SpeakerName[];
  idf: (lexeme: string) => number;
}): QuestionWeights & { content: string[] } {
  const asked = new Set(input.lexemes);
  const named = namedSpeakers(input.question, asked, input.speakers);
  const whoDid = asksWhoDid(input.question);
  const speakerWords = new Set(named.flatMap((speaker) => speaker.lexemes));
  const kind = answerKind(input.question);
  const framing = new Set([...input.framing, ...(kind?.light ?? [])]);
  const weights = new Map<string, number>();
  for (const lexeme of asked) {
    let weight = input.idf(lexeme);
    if (framing.has(lexeme)) weight *= FRAMING_WEIGHT;
    if (input.focus?.size && !input.focus.has(lexeme) && !framing.has(lexeme)) weight *= BESIDE_FOCUS_WEIGHT;
    if (speakerWords.has(lexeme)) weight *= SPEAKER_WORD_WEIGHT;
    weights.set(lexeme, weight);
  }
  const cues = new Set(kind?.cues.filter((lexeme) => !weights.has(lexeme)));
  for (const lexeme of cues) weights.set(lexeme, CUE_WEIGHT * input.idf(lexeme));
  return {
    weights,
    cues,
    ...(whoDid
      ? { repliedTo: new Set(named.map((speaker) => speaker.name.toLowerCase())) }
      : { speakers: new Set(named.map((speaker) => speaker.name.toLowerCase())) }),
    // What the question is about: neither how it is asked nor whom it asks about.
    content: [...asked].filter((lexeme) => !framing.has(lexeme) && !speakerWords.has(lexeme)),
  };
}

/** BM25's idf of a word held by `holding` of `total` documents. */
export const idf = (total: number, holding: number) =>
  Math.log(1 + (total - holding + 0.5) / (holding + 0.5));

/**
 * Each video's boost: the share of the question's content weight its title and description say
 * (a title names a meeting's subject; transcripts bury it in talk).
 */
export function titleBoosts(
  videos: Array<{ id: string; lexemes: string[] }>,
  content: string[],
  weight: (lexeme: string) => number,
): Map<string, number> {
  const total = content.reduce((sum, lexeme) => sum + weight(lexeme), 0);
  const boosts = new Map<string, number>();
  if (total === 0) return boosts;
  for (const video of videos) {
    const said = new Set(video.lexemes);
    const share = content.reduce((sum, lexeme) => sum + (said.has(lexeme) ? weight(lexeme) : 0), 0) / total;
    if (share > 0) boosts.set(video.id, share);
  }
  return boosts;
}
