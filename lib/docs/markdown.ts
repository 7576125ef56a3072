/**
 * Small markdown writers for `/auth.md`.
 *
 * @module
 */

/** One table cell: pipes escaped, line breaks folded. */
export function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function code(text: string): string {
  return `\`${text}\``;
}

export function codeList(items: readonly string[]): string {
  return items.map(code).join(', ');
}

/** `a`, `a and b`, `a, b and c`. */
export function andList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items.at(-1)}` : items.join('');
}

/** `a`, `a or b`, `a, b or c`. */
export function orList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : items.join('');
}

export function fence(language: string, body: string): string {
  return `\`\`\`${language}\n${body.replace(/\n+$/, '')}\n\`\`\``;
}

export function bullets(items: readonly string[]): string {
  return items.map((i) => `- ${i}`).join('\n');
}

export function numbered(items: readonly string[]): string {
  return items.map((item, i) => `${i + 1}. ${item}`).join('\n');
}

const UNITS: readonly [number, string][] = [[86400, 'day'], [3600, 'hour'], [60, 'minute']];

/** `3600` → `1 hour`, `1209600` → `14 days`, `90` → `90 seconds`. */
export function duration(seconds: number): string {
  for (const [size, unit] of UNITS) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** A period after "per": `60` → `minute`, `120` → `2 minutes`, `90` → `90 seconds`. */
export function perPeriod(seconds: number): string {
  const human = duration(seconds);
  return human.startsWith('1 ') ? human.slice(2) : human;
}

/** `1 hour (3600 seconds)`, or just `60 seconds`. */
export function durationWithSeconds(seconds: number): string {
  const human = duration(seconds);
  return human.endsWith('seconds') || human.endsWith('second') ? human : `${human} (${seconds} seconds)`;
}

export function bytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB (${n} bytes)` : `${n} bytes`;
}
