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

// what toISOString produces: taken as written (no normalising), and checked like any other
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * ISO 8601 as hosts store it: a date, or a date and time (`T`, or a space as SQL drivers
 * write it) with seconds and a fraction optional, and an offset (`Z`, `±hh:mm`, `±hhmm`,
 * `±hh`) or none. Anything else (`March 2, 2025`, which `Date` would guess at) is refused.
 */
const ISO_8601 = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(:\d{2})?(?:[.,](\d+))?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * `value` in the one form `Date` reads the same on every machine. A date and time without an
 * offset is read as UTC: `Date` would read it in the server's time zone, so the same record
 * would answer different instants on differently configured hosts.
 */
function normalisedIso(value: string): string | undefined {
  const m = ISO_8601.exec(value);
  if (!m) return undefined;
  const [, date, hm, sec, fraction, offset] = m;
  if (hm === undefined) return `${date}T00:00:00.000Z`;
  const millis = (fraction ?? '').padEnd(3, '0').slice(0, 3);
  let zone = 'Z';
  if (offset !== undefined && offset.toUpperCase() !== 'Z') {
    const digits = offset.slice(1).replace(':', '');
    zone = `${offset[0]}${digits.slice(0, 2)}:${digits.slice(2).padEnd(2, '0')}`;
  }
  return `${date}T${hm}${sec ?? ':00'}.${millis}${zone}`;
}

/**
 * Instants already formatted, by epoch milliseconds (a `Date`) or by the string given. A
 * member's answers repeat the same instants (enrolment dates, order times) request after
 * request, and `toISOString` was ~4% of an MCP member call listing 27 enrolments. Cleared
 * when full rather than kept in order: a few thousand short strings at most.
 */
const formatted = new BoundedMemo<number | string, string>(4096);

/**
 * Whether the calendar date and the time of day of `iso` (normalised) are the ones `date`
 * holds: `Date` rolls an impossible date over (February 30th becomes March 2nd) instead of
 * refusing it. Compared before the offset is applied, on the digits as written.
 */
function sameFieldsAs(iso: string, date: Date): boolean {
  const offsetMinutes = iso.endsWith('Z') ? 0 : (iso.at(-6) === '-' ? -1 : 1) * (Number(iso.slice(-5, -3)) * 60 + Number(iso.slice(-2)));
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const written = [0, 5, 8, 11, 14, 17].map((at, i) => Number(iso.slice(at, i === 0 ? 4 : at + 2)));
  const held = [local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate(), local.getUTCHours(), local.getUTCMinutes(), local.getUTCSeconds()];
  return written.every((n, i) => n === held[i]);
}

/**
 * ISO 8601 in UTC (`2025-03-01T09:00:00.000Z`); throws for a value that is not a point in
 * time or a string that is not ISO 8601, an impossible date (`2025-02-30`) included. A string
 * without an offset is UTC.
 */
export function toIsoInstant(value: Instant): string {
  const key = value instanceof Date ? value.getTime() : value;
  return formatted.get(key, () => {
    const iso = typeof value === 'string' ? (CANONICAL.test(value) ? value : normalisedIso(value.trim())) : undefined;
    if (typeof value === 'string' && iso === undefined) {
      throw new TypeError('member data: a date string is not ISO 8601 (e.g. 2025-03-01T09:00:00Z)');
    }
    const date = value instanceof Date ? value : new Date(iso!);
    if (Number.isNaN(date.getTime()) || (iso !== undefined && !sameFieldsAs(iso, date))) {
      throw new TypeError('member data: a date is not a valid point in time');
    }
    return date.toISOString();
  });
}

/**
 * The minor-unit digits of ISO 4217 (List One) where they are not 2, which the contract's
 * `amountMinor` counts in. Not ICU's display digits (`Intl.NumberFormat`): CLDR shows HUF,
 * IDR, COP, IQD and others without decimals although their minor unit is 2 (IQD 3), so an
 * amount would have been read 100 or 1000 times too large, and ICU's data changes with Node.
 */
const MINOR_UNIT_DIGITS: ReadonlyMap<string, number> = new Map([
  ...['BIF', 'CLP', 'DJF', 'GNF', 'ISK', 'JPY', 'KMF', 'KRW', 'PYG', 'RWF', 'UGX', 'UYI', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'].map((c) => [c, 0] as const),
  ...['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'].map((c) => [c, 3] as const),
  ...['CLF', 'UYW'].map((c) => [c, 4] as const),
]);

/** ISO 4217 codes with no minor unit ("N.A."): precious metals, funds, testing; no price is in them. */
const NO_MINOR_UNIT = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

/** The minor-unit digits of `currency` (upper case), by ISO 4217. */
export function minorUnitDigits(currency: string): number {
  if (!/^[A-Z]{3}$/.test(currency)) throw new TypeError('member data: a currency is not an ISO 4217 code (three letters, e.g. EUR)');
  if (NO_MINOR_UNIT.has(currency)) throw new TypeError(`member data: ${currency} has no minor unit in ISO 4217, so amountMinor cannot be read`);
  return MINOR_UNIT_DIGITS.get(currency) ?? 2;
}

export function formatMoney(money: MoneyRecord): Money {
  if (!Number.isSafeInteger(money.amountMinor)) throw new TypeError('member data: amountMinor must be an integer');
  const currency = money.currency.toUpperCase();
  const digits = minorUnitDigits(currency);
  const sign = money.amountMinor < 0 ? '-' : '';
  const units = String(Math.abs(money.amountMinor)).padStart(digits + 1, '0');
  const amount = digits === 0 ? units : `${units.slice(0, -digits)}.${units.slice(-digits)}`;
  return { amount: `${sign}${amount}`, currency };
}
