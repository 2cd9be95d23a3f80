/**
 * Word lists the extractor needs beyond the language model's stop words. Spoken meetings are full
 * of words that carry no subject ("yeah", "gonna", "kind of"); they must never become a topic, a
 * chapter title or the reason two items look alike.
 */

const words = (list: string) => new Set(list.split(/\s+/).filter(Boolean));

/** Fillers, back-channel and hedges of speech (lower-case, as the model normalises them). */
export const FILLERS = words(`
  yeah yes yep yup ya yah no nope nah okay ok alright right um umm uh uhm uh-huh mm mmm mm-hmm hmm
  hm er erm ah oh eh huh wow gonna wanna gotta dunno kinda sorta lemme gimme cause 'cause cos
  like well so just really actually basically literally totally probably maybe perhaps sure
  anyway anyways anyhow whatever pretty quite rather somewhat somehow stuff thing things something
  anything everything nothing kind sort lot lots bit bunch guess mean know think thought see say
  said saying tell told get got getting go going goes went gone come came coming want wanted
  let lets put take took make made thanks thank please sorry hello hi bye good great fine nice
  cool awesome interesting true totally exactly definitely certainly obviously clearly
  course indeed agree agreed anyone someone somebody everybody everyone anybody nobody guy guys
  fellow folks people person one ones way ways much many more most less least also even still
  already yet again ever never always often sometimes usually now then today tonight tomorrow
  yesterday here there time times actually etcetera etc
`);

/**
 * Words that say what kind of statement a sentence is ("we decided", "action item", "can you
 * make sure") rather than what it is about: two decisions about one thing must share a subject.
 */
export const FRAMING_WORDS = words(`
  decide decided decides deciding decision decisions agree agreed agreeing agreement settle settled
  choose chose chosen action item items sure make makes making need needs needed try trying tried
  ask asked asking wonder wondering
`);

/**
 * Nouns too general to name a topic or title a chapter ("the point", "this issue", "next week"):
 * they may be frequent in a meeting without saying what it is about.
 */
export const GENERIC_NOUNS = words(`
  meeting meetings agenda minute minutes hour hours second seconds day days week weeks month months
  year years moment while end start beginning part parts point points idea ideas question questions
  answer answers problem problems issue issues matter matters case cases fact facts example examples
  reason reasons sense word words term terms side sides area areas level levels number numbers
  place places line lines group groups team name names job jobs work look view opinion opinions
  thought thoughts topic topics subject discussion discussions talk conversation everybody member
  members bit piece pieces kind kinds sort sorts type types lot lots deal way ways thing things
  stuff something someone people person guy guys man men woman women folks side today tomorrow
  yesterday morning afternoon evening night tonight now time times step steps stage stages
  detail details aspect aspects thank thanks hand hands mind minds head heads room table board
  slide slides page pages presentation option options possibility chance change changes result
  results effect issue trouble stuff list lists set sets whole rest half couple range
  information info mention note notes comment comments suggestion suggestions proposal way order
  use uses lot cent percent per hundred thousand million billion dollar dollars
  mister mr mrs ms dr sir madam chair chairman session committee secretary minister
`);

/** Adjectives that say how much or how good, not what: "big booth" is about the booth. */
export const GENERIC_ADJECTIVES = words(`
  new old big small large little huge tiny different important same other whole main real certain
  general particular specific possible impossible hard easy simple difficult high low long short
  early late full free open clear better best worse worst bad able likely unlikely current previous
  next last first second third final several various whole entire total overall quick slow fast
  basic key major minor common usual normal typical special extra additional nice lovely wrong
  correct true false good great fine okay happy sorry ready sure available necessary enough
`);

/** Weekdays and months: dates are for due dates, not topics. */
export const CALENDAR_WORDS = words(`
  monday tuesday wednesday thursday friday saturday sunday january february march april may june
  july august september october november december
`);

/** Word classes that never carry a subject on their own. */
export const CLOSED_CLASSES = new Set([
  'ADP',
  'AUX',
  'CCONJ',
  'DET',
  'INTJ',
  'NUM',
  'PART',
  'PRON',
  'PUNCT',
  'SCONJ',
  'SYM',
  'SPACE',
  'X',
]);
