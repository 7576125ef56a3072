/**
 * Drives the demo admin page ("Developers → OAuth applications") over real HTTP with the
 * cookie-jar Browser: sign-in, the create form (which posts one `scope` per checked box,
 * something Browser.submit cannot express) and the per-client buttons.
 */
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';

export const appsPath = (site: string) => `/admin/sites/${site}/apps`;

export interface CreateFields {
  name: string;
  redirectUris: string[];
  type: 'public' | 'confidential';
  scopes: string[];
}

export interface Answer {
  response: Response;
  html: string;
}

/** HTML entities the page's escaping produces, back to text. */
export function text(html: string): string {
  return html
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#96;/g, '`')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** What the page shows right after create or rotate. */
export function issued(html: string): { clientId?: string; clientSecret?: string } {
  return {
    clientId: html.match(/<code id="issued-client-id">([^<]*)<\/code>/)?.[1],
    clientSecret: html.match(/<code id="issued-client-secret">([^<]*)<\/code>/)?.[1],
  };
}

/** The table row of a client on the list page, or undefined. */
export function row(html: string, clientId: string): string | undefined {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).find((r) => r.includes(`<code>${clientId}</code>`));
}

export class AdminBrowser {
  readonly browser: Browser;

  constructor(baseUrl: string) {
    this.browser = new Browser(baseUrl);
  }

  async page(path: string): Promise<PageResult> {
    const result = await this.browser.navigate(path);
    if (!isPage(result)) throw new Error(`${path} left the server: ${result.redirect}`);
    return result;
  }

  /** Opens /admin and submits the sign-in form; returns the page that follows. */
  async signIn(email: string, password: string): Promise<PageResult> {
    const form = await this.page('/admin');
    const result = await this.browser.submit(form, '/admin/sign-in', { email, password });
    if (!isPage(result)) throw new Error(`sign-in left the server: ${result.redirect}`);
    return result;
  }

  async post(action: string, fields: URLSearchParams | Record<string, string>): Promise<Answer> {
    const response = await this.browser.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    return { response, html: await response.text() };
  }

  /** Fills and submits the create form found on `page` (its CSRF token included). */
  async create(page: PageResult, fields: CreateFields): Promise<Answer> {
    const form = findForm(page.html, '/apps');
    const body = new URLSearchParams(form.hidden);
    body.set('name', fields.name);
    body.set('redirect_uris', fields.redirectUris.join('\r\n'));
    body.set('type', fields.type);
    for (const scope of fields.scopes) body.append('scope', scope);
    return this.post(form.action, body);
  }

  /** Presses a client's Rotate secret or Delete button on `page`. */
  async press(page: PageResult, clientId: string, action: 'rotate' | 'delete'): Promise<Answer> {
    const form = findForm(page.html, `/${clientId}/${action}`);
    return this.post(form.action, form.hidden);
  }

  /** The CSRF token of the forms on `page`. */
  csrf(page: PageResult): string {
    const token = findForm(page.html, '/admin/sign-out').hidden.csrf;
    if (!token) throw new Error('no CSRF token on the page');
    return token;
  }
}
