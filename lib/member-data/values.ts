/**
 * How values leave the service: instants as ISO 8601 UTC strings and money as exact decimal
 * strings, whatever the host stored.
 *
 * @module
 */
import { BoundedMemo } from '../bounded-memo.ts';
import type { Instant, MoneyRecord } from '../contracts.ts';

export interface Money {
  /** exact decimal in the currency's major unit, e.g. `"49.90"`, `"-5.00"`, `"1200"` (JPY) */
  readonly amount: string;
  /** ISO 4217 code */
  readonly currency: string;
}

// what toISOString produces; such strings pass through without a round trip through Date
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Instants already formatted, by epoch milliseconds (a `Date`) or by the string given. A
 * member's answers repeat the same instants (enrolment dates, order times) request after
 * request, and `toISOString` was ~4% of an MCP member call listing 27 enrolments. Cleared
 * when full rather than kept in order: a few thousand short strings at most.
 */
const formatted = new BoundedMemo<number | string, string>(4096);

/** ISO 8601 in UTC (`2025-03-01T09:00:00.000Z`); throws for a value that is not a point in time. */
export function toIsoInstant(value: Instant): string {
  if (typeof value === 'string' && CANONICAL.test(value)) return value;
  const key = value instanceof Date ? value.getTime() : value;
  return formatted.get(key, () => {
    const date = value instanceof Date ? value : new Date(value);
    if (Number.isNaN(date.getTime())) throw new TypeError('member data: a date is not a valid point in time');
    return date.toISOString();
  });
}

/** Minor-unit digits by currency code: host data names a handful of currencies. */
const fractionDigits = new BoundedMemo<string, number>(1024);

function digitsOf(currency: string): number {
  // throws RangeError for a code that is not ISO 4217-shaped (and keeps nothing)
  return fractionDigits.get(currency, () => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2);
}

export function formatMoney(money: MoneyRecord): Money {
  if (!Number.isSafeInteger(money.amountMinor)) throw new TypeError('member data: amountMinor must be an integer');
  const currency = money.currency.toUpperCase();
  const digits = digitsOf(currency);
  const sign = money.amountMinor < 0 ? '-' : '';
  const units = String(Math.abs(money.amountMinor)).padStart(digits + 1, '0');
  const amount = digits === 0 ? units : `${units.slice(0, -digits)}.${units.slice(-digits)}`;
  return { amount: `${sign}${amount}`, currency };
}
