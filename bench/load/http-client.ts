/**
 * A small HTTP/1.1 client for the login flow: node:http over a keep-alive agent (fetch costs
 * several times more CPU per request, and this client shares the machine with the servers),
 * plus a cookie jar per user agent.
 *
 * @module
 */
import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export function createAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

export function send(agent: Agent, method: string, url: URL, headers: Record<string, string> = {}, body?: string): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = request({
      agent, method, host: url.hostname, port: url.port, path: url.pathname + url.search,
      headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${url.pathname}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Cookies of one user agent: name + path, sent when the request path starts with the path. */
export class CookieJar {
  readonly #cookies = new Map<string, { name: string; value: string; path: string }>();

  header(path: string): string | undefined {
    const pairs: string[] = [];
    for (const c of this.#cookies.values()) if (path.startsWith(c.path)) pairs.push(`${c.name}=${c.value}`);
    return pairs.length ? pairs.join('; ') : undefined;
  }

  store(setCookie: string[] | undefined, requestPath: string): void {
    for (const line of setCookie ?? []) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      let path = requestPath.slice(0, requestPath.lastIndexOf('/') + 1) || '/';
      let expired = value === '';
      for (const attr of attrs) {
        const [k = '', v = ''] = attr.split('=');
        const key = k.toLowerCase();
        if (key === 'path') path = v;
        else if (key === 'max-age' && Number(v) <= 0) expired = true;
        else if (key === 'expires' && Date.parse(v) < Date.now()) expired = true;
      }
      if (expired) this.#cookies.delete(`${name};${path}`);
      else this.#cookies.set(`${name};${path}`, { name, value, path });
    }
  }
}
