/**
 * Whom introspection answers, as `/auth.md`'s endpoint table and `/openapi.json`'s
 * `IntrospectionResponse` say it, follows `introspectionClients`: only the token's own client
 * by default; with resource servers listed, them too; and that is what the endpoint does.
 */
import { demoClients } from '../../examples/host/seed.ts';
import { MEMBER, obtainTokens, operator, postForm, STUDENT } from '../support/flows.ts';
import { startApp } from '../support/start-app.ts';
import type { RunningApp } from '../support/start-app.ts';
import { codeSpans, fetchDocuments, tableUnder } from './support.ts';
import type { Documents } from './support.ts';

const RESOURCE_SERVER = {
  client_id: 'resource-server', client_secret: 'rs-secret-0123456789-0123456789-0123456789',
  token_endpoint_auth_method: 'client_secret_post', redirect_uris: ['https://rs.example/cb'], audience: 'operator',
};

function statements(docs: Documents) {
  const row = tableUnder(docs.authMd, '## 4. Endpoints').rows.find((r) => codeSpans(r[1]!)[0] === '/api/oauth/introspect')!;
  return { authMd: row[3]!, openapi: (docs.openapi.components.schemas.IntrospectionResponse as { description: string }).description };
}

async function introspect(app: RunningApp, token: string, client: { client_id: string; client_secret: string }) {
  return (await postForm(`${app.baseUrl}/api/oauth/introspect`, { token, ...client })).json() as Promise<{ active: boolean }>;
}

it('by default: only the token\'s own client, in both documents, and another client is told the token is inactive', async () => {
  const app = await startApp();
  try {
    const { authMd, openapi } = statements(await fetchDocuments(app.baseUrl));
    const said = 'answered only to the token\'s own client; for any other client the token is reported inactive (`active: false`)';
    expect(authMd).toContain(said);
    expect(openapi).toContain(said);
    expect(`${authMd} ${openapi}`).not.toMatch(/resource server/);
    const { access_token: token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
    const op = operator(app.baseUrl, app.operatorSecret);
    expect(await introspect(app, token, { client_id: op.clientId, client_secret: op.clientSecret })).toEqual({ active: false });
  } finally {
    await app.stop();
  }
});

it('with introspectionClients: the resource servers too, in both documents, and one of them is answered', async () => {
  const clients = [...demoClients('http://x', 'operator-secret-for-tests-0123456789'), RESOURCE_SERVER] as never;
  const app = await startApp({ auth: { clients, introspectionClients: [RESOURCE_SERVER.client_id] } });
  try {
    const { authMd, openapi } = statements(await fetchDocuments(app.baseUrl));
    const said = 'answered to the token\'s own client and to the resource servers this deployment trusts with every token; for any other client the token is reported inactive (`active: false`)';
    expect(authMd).toContain(said);
    expect(openapi).toContain(said);
    expect(authMd).not.toContain('answered only to the token\'s own client');
    const { access_token: token } = await obtainTokens(app.baseUrl, MEMBER, { scope: 'openid account:read' }, STUDENT);
    expect(await introspect(app, token, RESOURCE_SERVER)).toMatchObject({ active: true, client_id: MEMBER.clientId });
  } finally {
    await app.stop();
  }
});
