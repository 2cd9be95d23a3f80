// A question that names a day ("What happened on January 14?") is about that day: a sentence
// that says "due January 23" shares its month and nothing else.

/** The months as written in English, January first. */
export const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const DAY_OF_MONTH = new RegExp(`\\b(${MONTHS.join('|')})\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`, 'gi');

/**
 * For each month a question names with its day, the question's stemmed word for it (one of
 * `lexemes`: "january" stems to "januari") and whether a text says one of those days; a
 * sentence says the month for the question only where it says the day.
 */
export function namedDays(question: string, lexemes: string[]): Map<string, (text: string) => boolean> {
  const days = new Map<string, Set<number>>();
  for (const [, month = '', day = ''] of question.matchAll(DAY_OF_MONTH)) {
    const name = month.toLowerCase();
    days.set(name, new Set([...(days.get(name) ?? []), Number(day)]));
  }
  const tests = new Map<string, (text: string) => boolean>();
  for (const [month, said] of days) {
    // The stem keeps a month's first three letters ("januari", "septemb", "may").
    const lexeme = lexemes.find((candidate) => candidate.startsWith(month.slice(0, 3)));
    if (!lexeme) continue;
    tests.set(lexeme, (text) =>
      [...text.matchAll(DAY_OF_MONTH)].some(
        ([, named = '', day = '']) => named.toLowerCase() === month && said.has(Number(day)),
      ),
    );
  }
  return tests;
}
