import { describe, expect, it } from 'vitest';
import { dueDateIn } from './dates.ts';

/** A Wednesday. */
const meeting = new Date('2024-03-06T15:30:00Z');

describe('dueDateIn', () => {
  it.each([
    ['I will send it by Friday.', '2024-03-08'],
    ['Jonas will test it next week.', '2024-03-13'],
    ['I will write it tomorrow.', '2024-03-07'],
    ['Update the sheet by the end of the month.', '2024-03-31'],
    ['Book the booth by March 20?', '2024-03-20'],
    ['Have it ready in two weeks.', '2024-03-20'],
    ['Send it by next Tuesday.', '2024-03-12'],
    ['I will do it this afternoon.', '2024-03-06'],
    ['Please finish it by end of day.', '2024-03-06'],
    ['We need it by the end of the week.', '2024-03-08'],
    ['Could you do it this week?', '2024-03-08'],
  ])('%s → %s', (text, due) => {
    expect(dueDateIn(text, meeting)).toBe(due);
  });

  it('resolves a date already past this year to next year', () => {
    expect(dueDateIn('Send the report by March 3.', meeting)).toBe('2025-03-03');
  });

  it.each([
    'I will send it.',
    'We will talk about it in a few minutes.',
    'Call me at 3pm.',
    'We shipped it last Friday.',
    'Recruitment figures come in November.',
    'I will send it when we have the numbers.',
  ])('finds no due date in %s', (text) => {
    expect(dueDateIn(text, meeting)).toBeNull();
  });
});
