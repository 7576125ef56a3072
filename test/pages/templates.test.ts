/**
 * `options.pages.templates` replaces a page wholesale, and the library keeps its guarantees:
 * the CSP with a fresh nonce and no framing, the CSRF check of every form, and escaping (the
 * template gets values it interpolates through `html`, and must return `Html`).
 */
import type { LoginPageData, PageTemplates, TemplateKit } from '../../lib/index.ts';
import { DEFAULT_TEMPLATES } from '../../lib/index.ts';
import { DEFAULT_BRAND } from '../../lib/pages/layout.ts';
import { createTranslator } from '../../lib/pages/messages/index.ts';
import { createKit, renderTemplate } from '../../lib/pages/templates.ts';
import { Browser, findForm, isPage } from '../support/browser.ts';
import { MEMBER, STUDENT, buildAuthorizeUrl } from '../support/flows.ts';
import { pkcePair } from '../support/pkce.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';

const seen: LoginPageData[] = [];
const templates: PageTemplates = {
  login: (data, { html, t, layout, csrfField, nonce }) => {
    seen.push(data);
    return layout({
      title: 'Welcome back',
      style: '.school-login{border:2px solid var(--accent)}',
      body: html`<section class="school-login" data-nonce-seen="${nonce.length > 0}">
<h1>Welcome back to ${data.client.name}</h1>
<p>${t('login.toContinue', { client: data.client.name })}</p>
<form method="post" action="${data.action}">${csrfField(data.csrf)}
<label for="e">E-mail</label><input id="e" name="email" type="email" value="${data.email}">
<label for="p">Secret</label><input id="p" name="password" type="password">
<button type="submit">Go</button></form>
<form method="post" action="${data.cancelAction}">${csrfField(data.csrf)}<button type="submit">Not now</button></form>
</section>`,
    });
  },
  // a notice page that reuses the library's, with a line of its own before it
  notice: (data, kit) => DEFAULT_TEMPLATES.notice({ ...data, message: `${data.message} (school help desk: 555-0100)` }, kit),
};

let app: RunningApp;
let clientId: string;
beforeAll(async () => {
  app = await startApp({ auth: { pages: { templates } } });
  ({ client: { clientId } } = await app.auth.memberClients.create('demo-school', {
    name: '<img src=x onerror=alert(1)> Buddy', type: 'public', redirectUris: ['http://127.0.0.1/cb'], scopes: ['openid'],
  }));
});
afterAll(() => app.stop());

async function openLogin(client = MEMBER as { clientId: string; redirectUri: string }) {
  const browser = new Browser(app.baseUrl);
  const page = await browser.navigate(buildAuthorizeUrl(app.baseUrl, client, { scope: 'openid', challenge: pkcePair().challenge, state: 's' }));
  if (!isPage(page)) throw new Error('expected the sign-in page');
  return { browser, page };
}

it('renders the host\'s template inside the library\'s CSP, with its style allowed by the nonce', async () => {
  const { page } = await openLogin();
  expect(page.html).toContain('<h1>Welcome back to Demo Member App</h1>');
  expect(page.html).toContain('<title>Welcome back</title>');
  expect(page.html).toContain('.school-login{border:2px solid var(--accent)}');
  const csp = page.response.headers.get('content-security-policy')!;
  const nonce = /style-src 'nonce-([^']+)'/.exec(csp)![1]!;
  expect(page.html).toContain(`<style nonce="${nonce}">`);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(page.response.headers.get('x-frame-options')).toBe('DENY');
  expect(seen.at(-1)).toMatchObject({ client: { id: MEMBER.clientId, name: 'Demo Member App', trust: { kind: 'member', verified: true } }, again: false });
});

it('escapes what the template interpolates', async () => {
  const { page } = await openLogin({ clientId, redirectUri: 'http://127.0.0.1:9920/cb' });
  expect(page.html).toContain('Welcome back to &lt;img src=x onerror=alert(1)&gt; Buddy');
  expect(page.html).not.toContain('<img src=x');
});

it('keeps the CSRF check: the template\'s form signs in with its token, and not without', async () => {
  const { browser, page } = await openLogin();
  const form = findForm(page.html, '/login');
  const forged = await browser.request(form.action, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: STUDENT.email, password: STUDENT.password, csrf: 'nope' }),
  });
  expect(forged.status).toBe(403);
  // the 403 notice is the host's notice template
  expect(await forged.text()).toContain('Reload the page and try again. (school help desk: 555-0100)');
  const consent = await browser.submit(page, '/login', STUDENT);
  if (!isPage(consent)) throw new Error('expected the consent page');
  expect(consent.html).toContain('/confirm"');
});

describe('renderTemplate', () => {
  const kit: TemplateKit = createKit(createTranslator('en'), DEFAULT_BRAND, 'n0nce');
  const data = { title: 'T', message: '<b>m</b>' };

  it('refuses a template that returns a string: it would bypass escaping', () => {
    const bad = { notice: () => '<h1>raw</h1>' } as unknown as PageTemplates;
    expect(() => renderTemplate(bad, 'notice', data, kit)).toThrow('options.pages.templates.notice must return Html');
  });

  it('uses the library\'s template for a page left out', () => {
    const out = renderTemplate({}, 'notice', data, kit);
    expect(out).toContain('<p>&lt;b&gt;m&lt;/b&gt;</p>');
    expect(out).toContain('<style nonce="n0nce">');
  });

  it('refuses a style that would end the style element', () => {
    expect(() => kit.layout({ title: 't', body: kit.html`x`, style: 'a{}</style><script>alert(1)</script>' })).toThrow(/must not contain "<\/"/);
  });
});
