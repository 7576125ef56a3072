/**
 * Signs in through the real HTML pages with fetch, as a person in a browser would: a cookie
 * jar, redirects followed by hand, and each form posted with its hidden fields (the CSRF token
 * among them) plus what the person types.
 */
const ENTITIES: Readonly<Record<string, string>> = { '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };
const decode = (text: string) => text.replace(/&(?:quot|#39|lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);

interface Form {
  readonly action: string;
  readonly fields: Record<string, string>;
}

function findForm(html: string, actionSuffix: string): Form {
  for (const match of html.matchAll(/<form[^>]*\saction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const action = decode(match[1] ?? '');
    if (!action.endsWith(actionSuffix)) continue;
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      fields[decode(input[1] ?? '')] = decode(input[2] ?? '');
    }
    return { action, fields };
  }
  throw new Error(`no form posting to *${actionSuffix} on the page:\n${html.slice(0, 1500)}`);
}

export class Browser {
  readonly #origin: string;
  readonly #cookies = new Map<string, string>();

  constructor(origin: string) {
    this.#origin = origin;
  }

  async #request(url: URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (url.origin === this.#origin && this.#cookies.size > 0) {
      headers.set('cookie', [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';', 1)[0] ?? '';
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(cookie);
      if (expired || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    return response;
  }

  /** Follows redirects on this origin; returns the page reached or the redirect that leaves it. */
  async navigate(target: string, init: RequestInit = {}): Promise<{ html: string; url: URL } | { redirect: URL }> {
    let url = new URL(target, this.#origin);
    let response = await this.#request(url, init);
    for (let hops = 0; response.status >= 300 && response.status < 400; hops += 1) {
      if (hops > 10) throw new Error('too many redirects');
      url = new URL(response.headers.get('location') ?? '', url);
      if (url.origin !== this.#origin) return { redirect: url };
      response = await this.#request(url);
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`${response.status} at ${url.href}:\n${html.slice(0, 1500)}`);
    return { html, url };
  }

  async submit(html: string, actionSuffix: string, typed: Record<string, string> = {}) {
    const form = findForm(html, actionSuffix);
    return this.navigate(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, ...typed }).toString(),
    });
  }
}

/** Drives an authorization URL through sign-in and consent; returns the redirect to the client. */
export async function signIn(authorizationUrl: URL, email: string, password: string): Promise<URL> {
  const browser = new Browser(authorizationUrl.origin);
  let result = await browser.navigate(authorizationUrl.href);
  if ('html' in result && result.html.includes('name="password"')) {
    result = await browser.submit(result.html, '/login', { email, password });
  }
  if ('html' in result && result.html.includes('/confirm"')) {
    result = await browser.submit(result.html, '/confirm');
  }
  if ('html' in result) throw new Error(`sign-in stopped at ${result.url.href}:\n${result.html.slice(0, 1500)}`);
  return result.redirect;
}
