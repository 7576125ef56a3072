/**
 * A minimal browser for the sign-in and consent pages: a cookie jar, manual redirects, and
 * submission of the forms the pages render (hidden fields included), over real HTTP.
 */

interface StoredCookie {
  name: string;
  value: string;
  path: string;
}

export interface PageResult {
  /** the final response when it is a page of this server */
  response: Response;
  html: string;
  url: string;
}

export class Browser {
  readonly #origin: string;
  readonly #cookies = new Map<string, StoredCookie>();

  constructor(origin: string) {
    this.#origin = origin;
  }

  #cookieHeader(path: string): string {
    return [...this.#cookies.values()]
      .filter((c) => path.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  #store(response: Response, requestPath: string) {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attrs] = header.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      let path = requestPath.slice(0, requestPath.lastIndexOf('/') + 1) || '/';
      let expired = false;
      for (const attr of attrs) {
        const [k, v = ''] = attr.split('=');
        if (k!.toLowerCase() === 'path') path = v;
        if (k!.toLowerCase() === 'expires' && Date.parse(v) < Date.now()) expired = true;
        if (k!.toLowerCase() === 'max-age' && Number(v) <= 0) expired = true;
      }
      const key = `${name};${path}`;
      if (expired || value === '') this.#cookies.delete(key);
      else this.#cookies.set(key, { name, value, path });
    }
  }

  /** The value of the cookie `name` this browser holds (on any path), if any. */
  cookie(name: string): string | undefined {
    return [...this.#cookies.values()].find((c) => c.name === name)?.value;
  }

  /** Forgets the cookie `name` on every path, as when it expires (e.g. a host session's). */
  dropCookie(name: string): void {
    for (const [key, cookie] of this.#cookies) if (cookie.name === name) this.#cookies.delete(key);
  }

  /** One request, no redirect following. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url, this.#origin);
    const headers = new Headers(init.headers);
    if (target.origin === this.#origin) {
      const cookie = this.#cookieHeader(target.pathname);
      if (cookie) headers.set('cookie', cookie);
    }
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    if (target.origin === this.#origin) this.#store(response, target.pathname);
    return response;
  }

  /**
   * Follows redirects while they stay on this server. Returns either the page reached, or
   * the URL of the first redirect that leaves the server (the client's redirect_uri).
   */
  async navigate(url: string, init: RequestInit = {}): Promise<PageResult | { redirect: string }> {
    let response = await this.request(url, init);
    let current = new URL(url, this.#origin).href;
    for (let hops = 0; response.status >= 300 && response.status < 400; hops += 1) {
      if (hops > 10) throw new Error('too many redirects');
      const location = new URL(response.headers.get('location')!, current).href;
      if (new URL(location).origin !== this.#origin || location.includes('/callback')) return { redirect: location };
      current = location;
      response = await this.request(location);
    }
    return { response, html: await response.text(), url: current };
  }

  /** Submits the form whose action ends with `actionSuffix`, with its hidden fields plus `fields`. */
  async submit(page: PageResult, actionSuffix: string, fields: Record<string, string> = {}) {
    const form = findForm(page.html, actionSuffix);
    const body = new URLSearchParams({ ...form.hidden, ...fields });
    return this.navigate(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

export function findForm(html: string, actionSuffix: string): { action: string; hidden: Record<string, string> } {
  const forms = [...html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
  const match = forms.find((m) => decode(m[1]!).endsWith(actionSuffix));
  if (!match) throw new Error(`no form with action *${actionSuffix} on the page:\n${html.slice(0, 2000)}`);
  const hidden: Record<string, string> = {};
  for (const input of match[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    hidden[decode(input[1]!)] = decode(input[2]!);
  }
  return { action: decode(match[1]!), hidden };
}

export function isPage(result: PageResult | { redirect: string }): result is PageResult {
  return 'html' in result;
}

export interface SignInOptions {
  email: string;
  password: string;
  /** @default 'allow' */
  decision?: 'allow' | 'deny';
  /** for operators of several sites */
  orgId?: string;
}

/** Drives an authorization URL through sign-in and consent; returns the redirect to the client. */
export async function signIn(browser: Browser, authorizationUrl: string, options: SignInOptions): Promise<string> {
  let result = await browser.navigate(authorizationUrl);
  if (isPage(result) && result.html.includes('name="password"')) {
    result = await browser.submit(result, '/login', { email: options.email, password: options.password });
  }
  if (isPage(result) && result.html.includes('/confirm"')) {
    if ((options.decision ?? 'allow') === 'deny') result = await browser.submit(result, '/abort');
    else result = await browser.submit(result, '/confirm', options.orgId ? { org_id: options.orgId } : {});
  }
  if (isPage(result)) {
    throw new Error(`sign-in stopped at a page (${result.response.status}):\n${result.html.slice(0, 1500)}`);
  }
  return result.redirect;
}
