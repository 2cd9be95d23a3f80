import * as chrono from 'chrono-node';
import { utcDay } from '../../../lib/clock.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Phrases chrono does not read, or reads otherwise than a due date means them: "end of day" and
 * "this afternoon" are the meeting's day, "this week" and "end of the week" its Friday.
 */
const OWN_PHRASES: Array<{ pattern: RegExp; due: (meeting: Date) => Date }> = [
  {
    pattern: /\b(?:end of (?:the )?day|eod|today|tonight|this (?:morning|afternoon|evening))\b/i,
    due: (d) => d,
  },
  {
    pattern: /\b(?:(?:the )?end of (?:the|this) week|this week)\b/i,
    due: (d) => new Date(d.getTime() + ((5 - d.getUTCDay() + 7) % 7) * DAY_MS),
  },
];

/** "last Friday", "two days ago": the past, which forward resolution would turn into the future. */
const PAST = /\b(?:last|ago|yesterday|previous|past)\b/i;

/** "in a few minutes", "at 3pm", "for now": a time of the meeting's day, not a due date. */
const TIME_OF_DAY = /\b(?:minutes?|hours?|seconds?|o'clock|[ap]\.?m\.?|now)\b/i;

/**
 * The day a task is due, when the text says one ("by Friday", "next week", "tomorrow", "by the end
 * of the month", "by March 3"), as `YYYY-MM-DD` resolved forward from the meeting's date in UTC.
 * A month alone ("in November") is too vague to be a due date, and a day before the meeting is
 * a report of the past, not a due date.
 */
export function dueDateIn(text: string, meetingDate: Date): string | null {
  for (const { pattern, due } of OWN_PHRASES) if (pattern.test(text)) return utcDay(due(meetingDate));
  const results = chrono.parse(text, { instant: meetingDate, timezone: 0 }, { forwardDate: true });
  for (const result of results) {
    const { start } = result;
    if (TIME_OF_DAY.test(result.text) || PAST.test(result.text)) continue;
    if (!start.isCertain('day') && !start.isCertain('weekday')) continue;
    const year = start.get('year');
    const month = start.get('month');
    const day = start.get('day');
    if (year === null || month === null || day === null) continue;
    const date = new Date(Date.UTC(year, month - 1, day));
    if (utcDay(date) < utcDay(meetingDate)) continue;
    return utcDay(date);
  }
  return null;
}
