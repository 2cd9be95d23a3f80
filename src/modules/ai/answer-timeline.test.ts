import { describe, expect, it } from 'vitest';
import { asTimeline, dayWriter, laterChange, spansDays } from './answer-timeline.ts';
import type { Source } from './engine.ts';

const JANUARY_5 = new Date('2026-01-05T09:00:00Z');
const JANUARY_12 = new Date('2026-01-12T09:00:00Z');
const lead = {
  text: 'So, decision: search v2 ships behind a feature flag on January 30.',
  videoId: 'first',
  date: JANUARY_5,
};

describe('answer timeline', () => {
  it('finds the later passage that moves the decision to another date', () => {
    const moved = {
      text: 'Search v2 ships on February 13, behind the same flag.',
      videoId: 'second',
      date: JANUARY_12,
    };
    const unrelated = { text: 'The billing page ships on February 13.', videoId: 'second', date: JANUARY_12 };
    expect(laterChange(lead, [unrelated, moved])).toBe(moved);
  });

  it('finds a passage that says in words it replaces the decision', () => {
    const revision = {
      text: 'Then the decision changes. Search v2 moves to February 13. This replaces the January 30 date.',
      videoId: 'second',
      date: JANUARY_12,
    };
    expect(laterChange(lead, [revision])).toBe(revision);
  });

  it('finds nothing said earlier, on the same day or in the same meeting', () => {
    const moved = (videoId: string, date: Date) => ({
      text: 'Search v2 ships on February 13, behind the same flag.',
      videoId,
      date,
    });
    expect(laterChange(lead, [moved('second', new Date('2026-01-04T09:00:00Z'))])).toBeNull();
    expect(laterChange(lead, [moved('second', new Date('2026-01-05T17:00:00Z'))])).toBeNull();
    expect(laterChange(lead, [moved('first', JANUARY_12)])).toBeNull();
  });

  it('finds nothing when the lead states no decision', () => {
    const report = { ...lead, text: 'Search v2 ships behind a feature flag on January 30, I think.' };
    const moved = {
      text: 'Search v2 ships on February 13, behind the same flag.',
      videoId: 'second',
      date: JANUARY_12,
    };
    expect(laterChange(report, [moved])).toBeNull();
  });

  it('dates by UTC day, with the year only when the meetings span years', () => {
    expect(spansDays([JANUARY_5, new Date('2026-01-05T23:59:00Z')])).toBe(false);
    expect(spansDays([JANUARY_5, JANUARY_12])).toBe(true);
    expect(dayWriter([JANUARY_5, JANUARY_12])(JANUARY_12)).toBe('January 12');
    const december = new Date('2025-12-29T09:00:00Z');
    expect(dayWriter([december, JANUARY_5])(december)).toBe('December 29, 2025');
  });

  it("puts the lead's meeting first, then the other meetings oldest first, each opened by its first part, the rest as said", () => {
    const source = (videoId: string, day: string) =>
      ({ videoId, recordedAt: new Date(`2026-01-${day}T09:00:00Z`) }) as Source;
    const january5 = source('a', '05');
    const january12 = source('b', '12');
    const january19 = source('c', '19');
    const part = (of: Source, text: string, turn = 0) => [{ source: of, turn, text }];
    const parts = [
      part(january12, 'lead', 30),
      part(january19, 'latest, reached first', 9),
      part(january5, 'earliest'),
      part(january12, 'lead meeting, said after the lead', 40),
      part(january19, 'latest, said after', 12),
      part(january12, 'lead meeting, said before the lead', 4),
      part(january19, 'latest, said before', 2),
    ];
    expect(asTimeline(parts).map((taken) => taken[0]?.text)).toEqual([
      'lead',
      'lead meeting, said before the lead',
      'lead meeting, said after the lead',
      'earliest',
      'latest, reached first',
      'latest, said before',
      'latest, said after',
    ]);
    // Two meetings of one day: each in the order the answer reached it.
    const morning = source('m', '05');
    const afternoon = { ...source('n', '05'), recordedAt: new Date('2026-01-05T15:00:00Z') } as Source;
    const oneDay = [
      part(afternoon, 'lead', 30),
      part(morning, 'morning, reached first', 9),
      part(afternoon, 'afternoon, said first', 1),
      part(morning, 'morning, said first', 2),
    ];
    expect(asTimeline(oneDay).map((taken) => taken[0]?.text)).toEqual([
      'lead',
      'afternoon, said first',
      'morning, reached first',
      'morning, said first',
    ]);
  });
});
