/**
 * `npm run example`: starts the demo host on PORT (default 3000).
 */
import { buildApp } from './app.ts';
import { MEMBER_CLIENT_ID, OPERATOR_CLIENT_ID } from './seed.ts';

const port = Number(process.env.PORT ?? 3000);
const baseUrl = process.env.BASE_URL ?? `http://localhost:${port}`;

const demo = await buildApp({ baseUrl, operatorSecret: process.env.DEMO_OPERATOR_SECRET });
const server = demo.app.listen(port, () => {
  console.log(`
platform-auth demo listening on ${baseUrl}

  discovery        ${baseUrl}/.well-known/openid-configuration
  resource meta    ${baseUrl}/.well-known/oauth-protected-resource

  accounts         student@example.com / student   (student at demo-school)
                   admin@example.com / admin       (admin at demo-school)
                   outsider@example.com / outsider (student at other-school only)

  member client    ${MEMBER_CLIENT_ID} (public, PKCE, redirect http://127.0.0.1:<any port>/callback)
  operator client  ${OPERATOR_CLIENT_ID} / secret ${demo.operatorSecret}
                   (client_secret_post, redirect ${baseUrl}/demo/callback)

  Try: open ${baseUrl}/oauth/authorize?response_type=code&client_id=${OPERATOR_CLIENT_ID}&redirect_uri=${encodeURIComponent(`${baseUrl}/demo/callback`)}&scope=openid%20profile%20courses:read&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=xyz
       (code_verifier: dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk)
`);
});

async function shutdown() {
  server.close();
  await demo.close();
  process.exit(0);
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
