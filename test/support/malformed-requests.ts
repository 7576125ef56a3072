/**
 * Malformed requests over a raw socket (byte for byte, with a 5 s deadline) and the checks
 * every answer must pass whatever was sent: no 5xx but a storage 503, no stack trace or
 * internal error text, an answer at all, RFC 6749 §5.2 JSON at the OAuth endpoints, and an
 * error code on the authorization endpoint's error pages (test/e2e/malformed-input.test.ts).
 */
import { connect } from 'node:net';

export interface Raw {
  /** label for the report */
  readonly name: string;
  readonly method?: string;
  /** request-target, sent byte for byte (latin1) */
  readonly target: string;
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
  /** send Content-Length automatically (default true when body given) */
  readonly autoLength?: boolean;
  /** the endpoint kind, for the OAuth-body check */
  readonly kind?: 'oauth' | 'authorize' | 'other';
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly ms: number;
}

export interface Finding {
  readonly name: string;
  readonly request: string;
  readonly problem: string;
  readonly status: number | string;
  readonly excerpt: string;
}

const DEADLINE_MS = 5_000;

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    const eol = buf.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(i, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

export function send(port: number, r: Raw): Promise<Answer | 'hang' | { error: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (v: Answer | 'hang' | { error: string }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => finish('hang'), DEADLINE_MS);
    const tryParse = (final: boolean) => {
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (final) finish(all.length ? { error: `no header end: ${all.toString('latin1').slice(0, 200)}` } : { error: 'connection closed without answer' });
        return;
      }
      const head = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const status = Number(head[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const c = line.indexOf(':');
        const k = line.slice(0, c).trim().toLowerCase();
        headers[k] = headers[k] ? `${headers[k]}, ${line.slice(c + 1).trim()}` : line.slice(c + 1).trim();
      }
      let rest: Buffer = all.subarray(headEnd + 4);
      const noBody = (r.method ?? 'GET') === 'HEAD' || status === 204 || status === 304;
      if (noBody) return finish({ status, headers, body: '', ms: Date.now() - started });
      if (headers['content-length'] !== undefined) {
        const len = Number(headers['content-length']);
        if (rest.length >= len) return finish({ status, headers, body: rest.subarray(0, len).toString('utf8'), ms: Date.now() - started });
      } else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        if (rest.includes('\r\n0\r\n\r\n') || rest.subarray(0, 5).toString() === '0\r\n\r\n') {
          rest = dechunk(rest);
          return finish({ status, headers, body: rest.toString('utf8'), ms: Date.now() - started });
        }
      }
      if (final) finish({ status, headers, body: rest.toString('utf8'), ms: Date.now() - started });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', (e) => {
      if (chunks.length) tryParse(true);
      else finish({ error: `socket error ${e.message}` });
    });
    socket.on('connect', () => {
      const method = r.method ?? 'GET';
      const given = (r.headers ?? []).map(([k, v]) => [k, v] as [string, string]);
      const headers: [string, string][] = given.some(([k]) => /^host$/i.test(k)) ? given : [['Host', `127.0.0.1:${port}`], ...given];
      const body = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
      if (body !== undefined && r.autoLength !== false && !headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) {
        headers.push(['Content-Length', String(body.length)]);
      }
      if (!headers.some(([k]) => /^connection$/i.test(k))) headers.push(['Connection', 'close']);
      const head = `${method} ${r.target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
      socket.write(Buffer.from(head, 'latin1'));
      if (body) socket.write(body);
    });
  });
}

const LEAK = [
  /\n\s+at\s+\S+/, /node_modules/, /\/work\//, /\.(ts|js|mjs):\d+/, /TypeError|ReferenceError|RangeError|SyntaxError/,
  /Cannot read prop/, /is not a function/, /undefined is not/, /Unexpected token/, /JSON at position/,
  /ECONNREFUSED|ERR_[A-Z_]{4,}/, /Internal Server Error/i, /\[object Object\]/, /ioredis|ReplyError|WRONGTYPE|NOSCRIPT/,
];

function describeRequest(r: Raw): string {
  const body = r.body === undefined ? '' : ` body=${JSON.stringify((Buffer.isBuffer(r.body) ? r.body.toString('latin1') : r.body).slice(0, 160))}${(r.body.length > 160 ? `…(${r.body.length} bytes)` : '')}`;
  const headers = (r.headers ?? []).map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v}`).join(' | ');
  const target = r.target.length > 160 ? `${r.target.slice(0, 160)}…(${r.target.length})` : r.target;
  return `${r.method ?? 'GET'} ${target}${headers ? ` [${headers}]` : ''}${body}`;
}

export function check(r: Raw, a: Answer | 'hang' | { error: string }): Finding[] {
  const findings: Finding[] = [];
  const request = describeRequest(r);
  const add = (problem: string, status: number | string, excerpt: string) => findings.push({ name: r.name, request, problem, status, excerpt: excerpt.slice(0, 300) });
  // a Content-Length larger than the body sent: the server rightly waits for the rest (its
  // requestTimeout ends it); not a finding
  if (a === 'hang' && /length (larger than|>) body/.test(r.name)) return findings;
  if (a === 'hang') {
    add('hang (>5s)', 'none', '');
    return findings;
  }
  if ('error' in a) {
    add('no HTTP answer', 'none', a.error);
    return findings;
  }
  const storage503 = a.status === 503 && /temporarily_unavailable/.test(a.body);
  // answered by Node's HTTP parser before any application code (unknown method, headers too
  // large, raw non-ASCII request target): not the library's
  if ((a.status === 400 || a.status === 431) && a.body === '' && a.headers['x-request-id'] === undefined) return findings;
  if (a.status >= 500 && !storage503) add('5xx', a.status, a.body);
  for (const re of LEAK) {
    if (re.test(a.body)) {
      add(`leak? ${re}`, a.status, a.body.slice(Math.max(0, a.body.search(re) - 100)));
      break;
    }
  }
  if (r.kind === 'oauth' && a.status >= 400 && !storage503 && (r.method ?? 'GET') !== 'HEAD') {
    let ok = false;
    try {
      const json = JSON.parse(a.body) as { error?: unknown; error_description?: unknown };
      ok = typeof json.error === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(json.error)
        && (json.error_description === undefined || typeof json.error_description === 'string');
    } catch { /* not JSON */ }
    if (!ok) add('non-RFC6749 error body', a.status, `${a.headers['content-type'] ?? ''} ${a.body}`);
    if (ok && !/application\/json/.test(a.headers['content-type'] ?? '')) add('error body not application/json', a.status, `${a.headers['content-type'] ?? ''} ${a.body}`);
  }
  if (r.kind === 'authorize' && a.status >= 400 && !storage503 && (r.method ?? 'GET') !== 'HEAD') {
    // an error page must carry the code; JSON must be RFC 6749
    const isJson = /json/.test(a.headers['content-type'] ?? '');
    if (isJson) {
      try {
        const json = JSON.parse(a.body) as { error?: unknown };
        if (typeof json.error !== 'string') add('authorize: JSON error without error code', a.status, a.body);
      } catch {
        add('authorize: JSON content-type but not JSON', a.status, a.body);
      }
    } else if (!/invalid_[a-z_]+|unsupported_[a-z_]+|unauthorized_client|access_denied|login_required|server_error|temporarily_unavailable|session_not_found|consent_required|interaction_required|not_found/.test(a.body)) {
      add('authorize: error page without an error code', a.status, `${a.headers['content-type'] ?? ''} ${a.body.replace(/\s+/g, ' ').slice(0, 300)}`);
    }
  }
  return findings;
}

export async function runAll(port: number, cases: readonly Raw[], concurrency = 8): Promise<{ findings: Finding[]; answers: Map<string, Answer | 'hang' | { error: string }> }> {
  const findings: Finding[] = [];
  const answers = new Map<string, Answer | 'hang' | { error: string }>();
  let i = 0;
  const worker = async () => {
    while (i < cases.length) {
      const c = cases[i++]!;
      const a = await send(port, c);
      answers.set(c.name, a);
      findings.push(...check(c, a));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { findings, answers };
}
