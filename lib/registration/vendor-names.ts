/**
 * How Variant A compares a registration's `client_name` with the vendor platforms: case-
 * and whitespace-insensitively, after Unicode compatibility normalisation, so
 * "Acme LMS", " acme  lms " and "ＡＣＭＥ LMS" name the same platform.
 *
 * @module
 */
export function normaliseClientName(name: string): string {
  return name.normalize('NFKC').toLocaleLowerCase('en').replace(/\s+/gu, '');
}
