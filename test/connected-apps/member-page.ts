/**
 * Drives the demo host's "Connected apps" page over real HTTP with the cookie-jar Browser:
 * sign-in, the list as the page shows it, and the Disconnect form.
 */
import { Browser, findForm, isPage } from '../support/browser.ts';
import type { PageResult } from '../support/browser.ts';

export const HOME = '/connected-apps';

/** What one listed app shows. */
export interface ShownApp {
  readonly clientId: string;
  readonly name: string;
  readonly meta: string;
  /** the scope names listed under "Can" */
  readonly scopes: string[];
  /** the `datetime` values of "Connected" and "Last used" */
  readonly connected: string;
  readonly lastUsed: string;
  /** the text of those two */
  readonly connectedText: string;
  readonly lastUsedText: string;
}

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const textOf = (html: string) => unescape(html.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ').trim();

export function shownApps(html: string): ShownApp[] {
  // one chunk per app: each starts at its <li class="app"> (the items hold lists of their own)
  const chunks = html.split('<li class="app" data-client-id="').slice(1);
  return chunks.map((chunk) => {
    const id = chunk.slice(0, chunk.indexOf('"'));
    const item = chunk.slice(chunk.indexOf('>') + 1);
    const times = [...item.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)];
    return {
      clientId: unescape(id),
      name: textOf(/<h2>([\s\S]*?)<\/h2>/.exec(item)![1]!),
      meta: textOf(/<p class="meta">([\s\S]*?)<\/p>/.exec(item)![1]!),
      scopes: [.../<ul class="scopes">([\s\S]*?)<\/ul>/.exec(item)![1]!.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => unescape(m[1]!)),
      connected: times[0]![1]!,
      lastUsed: times[1]![1]!,
      connectedText: times[0]![2]!,
      lastUsedText: times[1]![2]!,
    };
  });
}

export class MemberPage {
  readonly browser: Browser;

  constructor(origin: string) {
    this.browser = new Browser(origin);
  }

  async open(path = HOME): Promise<PageResult> {
    const result = await this.browser.navigate(path);
    if (!isPage(result)) throw new Error(`${path} left the server: ${result.redirect}`);
    return result;
  }

  /** Opens the page, submits the sign-in form; returns the page that follows. */
  async signIn(user: { email: string; password: string }): Promise<PageResult> {
    const form = await this.open();
    const result = await this.browser.submit(form, `${HOME}/sign-in`, { email: user.email, password: user.password });
    if (!isPage(result)) throw new Error(`sign-in left the server: ${result.redirect}`);
    return result;
  }

  async post(action: string, fields: Record<string, string>): Promise<{ response: Response; html: string }> {
    const response = await this.browser.request(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    return { response, html: await response.text() };
  }

  /** Submits the Disconnect form of `clientId` found on `page` (without following the redirect). */
  disconnect(page: PageResult, clientId: string): Promise<{ response: Response; html: string }> {
    const forms = [...page.html.matchAll(/<form[^>]*action="([^"]*\/revoke)"[^>]*>([\s\S]*?)<\/form>/g)];
    const form = forms.find((m) => m[2]!.includes(`name="client_id" value="${clientId}"`));
    if (!form) throw new Error(`no Disconnect form for ${clientId}`);
    const hidden = Object.fromEntries([...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, unescape(m[2]!)]));
    return this.post(form[1]!, hidden);
  }

  csrf(page: PageResult): string {
    return findForm(page.html, `${HOME}/sign-out`).hidden.csrf!;
  }
}
