import type { BillingInterval } from '../../db/schema/billing.ts';
import type { Plan } from './catalog.ts';

/** What one period of a plan costs for a number of seats, in minor units. */
export const periodPrice = (plan: Plan, interval: BillingInterval, seats: number) =>
  plan.prices[interval] * (plan.perSeat ? seats : 1);

/**
 * The share of `amount` (minor units) for `part` of `whole` milliseconds, rounded half up — in
 * integers (BigInt), since amount × milliseconds leaves the range where a double is exact.
 */
export function prorate(amount: number, partMs: number, wholeMs: number): number {
  if (wholeMs <= 0 || partMs <= 0) return 0;
  if (partMs >= wholeMs) return amount;
  const numerator = BigInt(amount) * BigInt(Math.round(partMs)) * 2n + BigInt(Math.round(wholeMs));
  return Number(numerator / (BigInt(Math.round(wholeMs)) * 2n));
}

/**
 * The end of a period that starts at `start`: one calendar month or year later (UTC), on the day of
 * the month of `anchor` (the subscription's first day), clamped to the last day of a shorter month —
 * so a subscription that started on January 31 renews on February 28, then March 31.
 */
export function periodEnd(start: Date, interval: BillingInterval, anchor: Date = start): Date {
  const months = interval === 'month' ? 1 : 12;
  const end = new Date(start);
  end.setUTCDate(1);
  end.setUTCMonth(end.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate();
  end.setUTCDate(Math.min(anchor.getUTCDate(), lastDay));
  return end;
}

const ZERO_DECIMAL = new Set(['jpy', 'krw', 'vnd', 'clp', 'isk', 'ugx', 'xaf', 'xof']);

/** An amount for people: `$15.00`, `¥1,500` (Intl's formatting, from integer minor units). */
export function formatMoney(amount: number, currency: string): string {
  const digits = ZERO_DECIMAL.has(currency) ? 0 : 2;
  const major = digits === 0 ? amount : amount / 100;
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
    minimumFractionDigits: digits,
  }).format(major);
}
