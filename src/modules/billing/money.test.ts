import { describe, expect, it } from 'vitest';
import { formatMoney, periodEnd, prorate } from './money.ts';

describe('money', () => {
  it('prorates in integers, rounding half up, exactly where doubles are not', () => {
    expect(prorate(7500, 1, 3)).toBe(2500);
    expect(prorate(100, 1, 8)).toBe(13); // 12.5 → 13
    expect(prorate(100, 1, 3)).toBe(33);
    expect(prorate(7500, 0, 1000)).toBe(0);
    expect(prorate(7500, 2000, 1000)).toBe(7500);
    // A year of 5,000 seats at $300 (150,000,000 cents) for 1 ms of 365 days: amount × ms is past 2^53.
    const year = 365 * 24 * 3600 * 1000;
    expect(prorate(150_000_000, year - 1, year)).toBe(150_000_000);
    expect(prorate(150_000_000, year / 2, year)).toBe(75_000_000);
  });

  it('ends a period a calendar month or year later, on the last day of a shorter month', () => {
    expect(periodEnd(new Date('2026-01-31T10:00:00Z'), 'month').toISOString()).toBe(
      '2026-02-28T10:00:00.000Z',
    );
    expect(periodEnd(new Date('2028-01-31T10:00:00Z'), 'month').toISOString()).toBe(
      '2028-02-29T10:00:00.000Z',
    );
    expect(periodEnd(new Date('2026-11-25T13:00:00Z'), 'month').toISOString()).toBe(
      '2026-12-25T13:00:00.000Z',
    );
    expect(periodEnd(new Date('2026-12-15T00:00:00Z'), 'month').toISOString()).toBe(
      '2027-01-15T00:00:00.000Z',
    );
    expect(periodEnd(new Date('2028-02-29T00:00:00Z'), 'year').toISOString()).toBe(
      '2029-02-28T00:00:00.000Z',
    );
    // Renewals keep the first day: January 31 → February 28 → March 31, not the 28th for good.
    const anchor = new Date('2026-01-31T09:00:00Z');
    const february = periodEnd(anchor, 'month');
    expect(february.toISOString()).toBe('2026-02-28T09:00:00.000Z');
    expect(periodEnd(february, 'month', anchor).toISOString()).toBe('2026-03-31T09:00:00.000Z');
  });

  it('formats minor units for people, with the currency’s own decimals', () => {
    expect(formatMoney(7500, 'usd')).toBe('$75.00');
    expect(formatMoney(-1234, 'eur')).toBe('-€12.34');
    expect(formatMoney(1500, 'jpy')).toBe('¥1,500');
  });
});
