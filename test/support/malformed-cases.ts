/**
 * Malformed requests for every endpoint of lib/endpoints.ts and the demo host's own pages:
 * content types and charsets, broken and oversized bodies, odd parameter values and
 * encodings, duplicated and bracketed parameters, methods, paths, cookies, Authorization
 * headers, GraphQL and MCP bodies and headers (test/e2e/malformed-input.test.ts).
 */
import type { Raw } from './malformed-requests.ts';

export interface FuzzContext {
  readonly baseUrl: string;
  readonly memberToken: string;
  readonly refreshToken: string;
  readonly operatorToken: string;
  readonly operatorSecret: string;
  /** an interaction uid and the cookies of its browser */
  readonly uid: string;
  readonly cookies: string;
}

const FORM = ['Content-Type', 'application/x-www-form-urlencoded'] as const;
const JSON_CT = ['Content-Type', 'application/json'] as const;

const LONG = (n: number, ch = 'a') => ch.repeat(n);

/** Values for string parameters. */
const ODD_VALUES: readonly [string, string][] = [
  ['empty', ''],
  ['pct', '%'],
  ['pctzz', '%zz'],
  ['pct00', '%00'],
  ['pctC3', '%C3'], // lone lead byte → invalid UTF-8 after decoding
  ['pctFF', '%FF%FE'],
  ['pctD800', '%ED%A0%80'], // encoded surrogate
  ['unicode', '%E2%9C%93%F0%9F%98%80'],
  ['plus', '+++'],
  ['ctrl', '%0D%0A%09'],
  ['long10k', LONG(10_000)],
  ['long100k', LONG(100_000)],
  ['json-ish', '%7B%22a%22%3A1%7D'],
  ['proto', '__proto__'],
  ['constructor', 'constructor'],
];

function form(fields: readonly (readonly [string, string])[]): string {
  // values are already percent-encoded (or deliberately broken)
  return fields.map(([k, v]) => `${k}=${v}`).join('&');
}

export function buildCases(c: FuzzContext): Raw[] {
  const cases: Raw[] = [];
  const add = (r: Raw) => cases.push(r);
  const base = new URL(c.baseUrl);
  const enc = encodeURIComponent;

  // ---------- OAuth POST endpoints ----------
  const oauthPosts: Record<string, readonly (readonly [string, string])[]> = {
    '/api/oauth/token': [['grant_type', 'authorization_code'], ['code', 'abc'], ['client_id', 'demo-member-app'], ['redirect_uri', enc('http://127.0.0.1:8765/callback')], ['code_verifier', LONG(50)]],
    '/api/oauth/token#refresh': [['grant_type', 'refresh_token'], ['refresh_token', enc(c.refreshToken)], ['client_id', 'demo-member-app']],
    '/api/oauth/token#opsecret': [['grant_type', 'refresh_token'], ['refresh_token', 'x'], ['client_id', 'demo-operator-app'], ['client_secret', enc(c.operatorSecret)]],
    '/api/oauth/revoke': [['token', enc('not-a-token')], ['client_id', 'demo-member-app']],
    '/api/oauth/introspect': [['token', enc(c.memberToken)], ['client_id', 'demo-operator-app'], ['client_secret', enc(c.operatorSecret)]],
  };
  for (const [key, fields] of Object.entries(oauthPosts)) {
    const path = key.split('#')[0]!;
    const tag = key;
    // content types
    const ctVariants: [string, [string, string][]][] = [
      ['no-ct', []],
      ['json-ct', [[...JSON_CT]]],
      ['text-ct', [['Content-Type', 'text/plain']]],
      ['dup-ct', [[...FORM], ['Content-Type', 'application/json']]],
      ['ct-charset-latin1', [['Content-Type', 'application/x-www-form-urlencoded; charset=iso-8859-1']]],
      ['ct-charset-bogus', [['Content-Type', 'application/x-www-form-urlencoded; charset=bogus-xx']]],
      ['ct-charset-utf16', [['Content-Type', 'application/x-www-form-urlencoded; charset=utf-16']]],
      ['ct-garbage', [['Content-Type', ';;;===']]],
      ['ct-multipart', [['Content-Type', 'multipart/form-data; boundary=x']]],
      ['ct-multipart-nob', [['Content-Type', 'multipart/form-data']]],
      ['ct-empty', [['Content-Type', '']]],
    ];
    for (const [n, h] of ctVariants) add({ name: `${tag} ${n}`, method: 'POST', target: path, headers: h, body: form(fields), kind: 'oauth' });
    add({ name: `${tag} json body`, method: 'POST', target: path, headers: [[...JSON_CT]], body: JSON.stringify(Object.fromEntries(fields.map(([k, v]) => [k, decodeURIComponent(v)]))), kind: 'oauth' });
    add({ name: `${tag} json array body`, method: 'POST', target: path, headers: [[...JSON_CT]], body: JSON.stringify({ grant_type: ['a', 'b'], client_id: { a: 1 }, token: [1] }), kind: 'oauth' });
    add({ name: `${tag} broken json`, method: 'POST', target: path, headers: [[...JSON_CT]], body: '{"grant_type":', kind: 'oauth' });
    add({ name: `${tag} empty body`, method: 'POST', target: path, headers: [[...FORM]], body: '', kind: 'oauth' });
    add({ name: `${tag} no body no length`, method: 'POST', target: path, headers: [[...FORM]], kind: 'oauth' });
    add({ name: `${tag} huge body 2MB`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&x=${LONG(2_000_000)}`, kind: 'oauth' });
    add({ name: `${tag} huge body 200KB`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&x=${LONG(200_000)}`, kind: 'oauth' });
    add({ name: `${tag} many params`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&${Array.from({ length: 5000 }, (_, i) => `p${i}=1`).join('&')}`, kind: 'oauth' });
    add({ name: `${tag} raw invalid utf8 bytes`, method: 'POST', target: path, headers: [[...FORM]], body: Buffer.concat([Buffer.from(`${form(fields)}&client_id=`), Buffer.from([0xc3, 0x28, 0xff])]), kind: 'oauth' });
    add({ name: `${tag} gzip encoding lie`, method: 'POST', target: path, headers: [[...FORM], ['Content-Encoding', 'gzip']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} br encoding`, method: 'POST', target: path, headers: [[...FORM], ['Content-Encoding', 'br']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} bogus encoding`, method: 'POST', target: path, headers: [[...FORM], ['Content-Encoding', 'x-bogus']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} length larger than body`, method: 'POST', target: path, headers: [[...FORM], ['Content-Length', '500']], body: form(fields), autoLength: false, kind: 'oauth' });
    add({ name: `${tag} chunked`, method: 'POST', target: path, headers: [[...FORM], ['Transfer-Encoding', 'chunked']], body: `${Buffer.byteLength(form(fields)).toString(16)}\r\n${form(fields)}\r\n0\r\n\r\n`, kind: 'oauth' });
    // parameters
    for (const [field] of fields) {
      add({ name: `${tag} dup ${field}`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&${field}=other`, kind: 'oauth' });
      add({ name: `${tag} bracket ${field}`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields.filter(([k]) => k !== field))}&${field}[]=x&${field}[a]=y`, kind: 'oauth' });
      add({ name: `${tag} missing ${field}`, method: 'POST', target: path, headers: [[...FORM]], body: form(fields.filter(([k]) => k !== field)), kind: 'oauth' });
      for (const [vn, v] of ODD_VALUES) {
        add({ name: `${tag} ${field}=${vn}`, method: 'POST', target: path, headers: [[...FORM]], body: form(fields.map(([k, x]) => [k, k === field ? v : x])), kind: 'oauth' });
      }
    }
    for (const extra of ['resource', 'scope', 'client_assertion', 'client_assertion_type', 'token_type_hint', 'dpop', 'audience', 'code_verifier', 'redirect_uri']) {
      for (const [vn, v] of ODD_VALUES) add({ name: `${tag} +${extra}=${vn}`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&${extra}=${v}`, kind: 'oauth' });
    }
    add({ name: `${tag} 50 resources`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&${Array.from({ length: 50 }, (_, i) => `resource=${enc(`https://r${i}.example/`)}`).join('&')}`, kind: 'oauth' });
    add({ name: `${tag} 2 resources same`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&resource=${enc(c.baseUrl)}&resource=${enc(c.baseUrl)}`, kind: 'oauth' });
    add({ name: `${tag} resource with fragment`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&resource=${enc(`${c.baseUrl}#x`)}`, kind: 'oauth' });
    add({ name: `${tag} resource relative`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&resource=${enc('/x')}`, kind: 'oauth' });
    add({ name: `${tag} unicode scope`, method: 'POST', target: path, headers: [[...FORM]], body: `${form(fields)}&scope=${enc('openid ✓ 😀 account:read \u0000')}`, kind: 'oauth' });
    // authorization headers
    const authz: [string, string][] = [
      ['basic-no-colon', `Basic ${Buffer.from('demo-operator-app').toString('base64')}`],
      ['basic-empty', 'Basic '],
      ['basic-garbage', 'Basic !!!***'],
      ['basic-pct', `Basic ${Buffer.from('%zz:%').toString('base64')}`],
      ['basic-utf8', `Basic ${Buffer.from('ü✓:x').toString('base64')}`],
      ['basic-long', `Basic ${Buffer.from(`${LONG(6000)}:x`).toString('base64')}`],
      ['bearer-spaces', 'Bearer a b c'],
      ['bearer-empty', 'Bearer'],
      ['bearer-long', `Bearer ${LONG(7000)}`],
      ['weird-scheme', 'Digest username="x"'],
      ['latin1', 'Bearer \u00e9\u00e8'],
      ['dpop', 'DPoP abc'],
    ];
    for (const [n, v] of authz) add({ name: `${tag} authz ${n}`, method: 'POST', target: path, headers: [[...FORM], ['Authorization', v]], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} dup authz`, method: 'POST', target: path, headers: [[...FORM], ['Authorization', 'Bearer a'], ['Authorization', 'Basic eDp5']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} DPoP header garbage`, method: 'POST', target: path, headers: [[...FORM], ['DPoP', 'a.b.c']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} DPoP header long`, method: 'POST', target: path, headers: [[...FORM], ['DPoP', LONG(8000)]], body: form(fields), kind: 'oauth' });
    // methods
    for (const m of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'FOO']) {
      add({ name: `${tag} method ${m}`, method: m, target: path, kind: m === 'OPTIONS' || m === 'HEAD' ? 'other' : 'oauth' });
    }
    add({ name: `${tag} OPTIONS preflight`, method: 'OPTIONS', target: path, headers: [['Origin', 'https://evil.example'], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'content-type, authorization']] });
    add({ name: `${tag} query instead of body`, method: 'POST', target: `${path}?${form(fields)}`, headers: [[...FORM]], body: '', kind: 'oauth' });
    add({ name: `${tag} query+body dup`, method: 'POST', target: `${path}?client_id=x`, headers: [[...FORM]], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} odd query`, method: 'POST', target: `${path}?%zz&%&a=%00`, headers: [[...FORM]], body: form(fields), kind: 'oauth' });
    // paths
    for (const p of [`${path}/`, `/${path}`, `${path}//`, path.replace('/oauth/', '/oauth%2F'), `${path}/..`, `${path}/../token`, path.toUpperCase(), `${path}%00`, `${path};x=1`, `${path}.json`]) {
      add({ name: `${tag} path ${p}`, method: 'POST', target: p, headers: [[...FORM]], body: form(fields) });
    }
    // cookies
    add({ name: `${tag} malformed cookie`, method: 'POST', target: path, headers: [[...FORM], ['Cookie', '_session=%zz; _session.sig=%; ;;=;a']], body: form(fields), kind: 'oauth' });
    add({ name: `${tag} huge cookie`, method: 'POST', target: path, headers: [[...FORM], ['Cookie', `_session=${LONG(12_000)}`]], body: form(fields), kind: 'oauth' });
  }

  // ---------- registration (Variant A, platform) ----------
  const reg = '/api/oauth/register';
  const regBodies: [string, string, readonly (readonly [string, string])[]][] = [
    ['ok', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT]],
    ['unknown', JSON.stringify({ client_name: 'Nobody' }), [JSON_CT]],
    ['array', JSON.stringify([{ client_name: 'Acme LMS' }]), [JSON_CT]],
    ['name array', JSON.stringify({ client_name: ['Acme LMS'] }), [JSON_CT]],
    ['name object', JSON.stringify({ client_name: { toString: 'x' } }), [JSON_CT]],
    ['name number', JSON.stringify({ client_name: 1 }), [JSON_CT]],
    ['name null', JSON.stringify({ client_name: null }), [JSON_CT]],
    ['proto', '{"__proto__":{"client_name":"Acme LMS"}}', [JSON_CT]],
    ['null', 'null', [JSON_CT]],
    ['string', '"x"', [JSON_CT]],
    ['number', '1', [JSON_CT]],
    ['broken', '{"client_name":', [JSON_CT]],
    ['empty', '', [JSON_CT]],
    ['long name', JSON.stringify({ client_name: LONG(100_000) }), [JSON_CT]],
    ['unicode name', JSON.stringify({ client_name: 'Acme\u0000LMS ✓ \ud800' }), [JSON_CT]],
    ['raw bad utf8', '', [JSON_CT]],
    ['huge 3MB', JSON.stringify({ client_name: 'Acme LMS', x: LONG(3_000_000) }), [JSON_CT]],
    ['deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, [JSON_CT]],
    ['form', 'client_name=Acme+LMS', [FORM]],
    ['text', JSON.stringify({ client_name: 'Acme LMS' }), [['Content-Type', 'text/plain']]],
    ['no ct', JSON.stringify({ client_name: 'Acme LMS' }), []],
    ['dup ct', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT, FORM]],
    ['json latin1', JSON.stringify({ client_name: 'Acme LMS' }), [['Content-Type', 'application/json; charset=latin1']]],
    ['json utf16', JSON.stringify({ client_name: 'Acme LMS' }), [['Content-Type', 'application/json; charset=utf-16']]],
    ['json bogus cs', JSON.stringify({ client_name: 'Acme LMS' }), [['Content-Type', 'application/json; charset=bogus']]],
    ['json +json', JSON.stringify({ client_name: 'Acme LMS' }), [['Content-Type', 'application/vnd.x+json']]],
    ['gzip lie', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT, ['Content-Encoding', 'gzip']]],
    ['bogus enc', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT, ['Content-Encoding', 'x-bogus']]],
    ['redirect_uris odd', JSON.stringify({ client_name: 'Acme LMS', redirect_uris: 'x', grant_types: { a: 1 }, scope: ['a'] }), [JSON_CT]],
    ['metadata cimd', JSON.stringify({ client_name: 'Acme LMS', client_id: 'https://evil.example/x', jwks_uri: 'http://127.0.0.1:1/' }), [JSON_CT]],
    ['bearer', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT, ['Authorization', 'Bearer x y']]],
    ['basic', JSON.stringify({ client_name: 'Acme LMS' }), [JSON_CT, ['Authorization', 'Basic eA==']]],
  ];
  for (const [n, b, h] of regBodies) {
    add({ name: `register ${n}`, method: 'POST', target: reg, headers: h.map(([k, v]) => [k, v] as const), body: n === 'raw bad utf8' ? Buffer.from([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]) : b, kind: 'oauth' });
  }
  add({ name: 'register length > body', method: 'POST', target: reg, headers: [[...JSON_CT], ['Content-Length', '400']], body: '{}', autoLength: false, kind: 'oauth' });
  for (const m of ['GET', 'PUT', 'DELETE', 'PATCH', 'FOO']) add({ name: `register method ${m}`, method: m, target: reg, kind: 'oauth' });
  add({ name: 'register HEAD', method: 'HEAD', target: reg });
  add({ name: 'register OPTIONS', method: 'OPTIONS', target: reg, headers: [['Origin', 'https://x.example'], ['Access-Control-Request-Method', 'POST']] });
  for (const p of [`${reg}/`, `${reg}/abc`, `${reg}?client_id=x`, `/${reg}`]) add({ name: `register path ${p}`, method: 'POST', target: p, headers: [[...JSON_CT]], body: '{"client_name":"Acme LMS"}' });
  add({ name: 'register GET /abc (RFC7592 read)', method: 'GET', target: `${reg}/acme-lms`, headers: [['Authorization', 'Bearer x']] });

  // ---------- authorization endpoint ----------
  const authBase: [string, string][] = [
    ['response_type', 'code'], ['client_id', 'demo-member-app'], ['redirect_uri', enc('http://127.0.0.1:8765/callback')],
    ['scope', enc('openid account:read')], ['code_challenge', LONG(43, 'A')], ['code_challenge_method', 'S256'], ['state', 'st'], ['resource', enc(c.baseUrl)],
  ];
  const az = (fields: readonly (readonly [string, string])[]) => `/oauth/authorize?${form(fields)}`;
  for (const [field] of authBase) {
    add({ name: `authorize dup ${field}`, target: `${az(authBase)}&${field}=${field === 'resource' ? enc(c.baseUrl) : 'other'}`, kind: 'authorize' });
    add({ name: `authorize missing ${field}`, target: az(authBase.filter(([k]) => k !== field)), kind: 'authorize' });
    add({ name: `authorize bracket ${field}`, target: `${az(authBase.filter(([k]) => k !== field))}&${field}[]=x`, kind: 'authorize' });
    for (const [vn, v] of ODD_VALUES) {
      if (vn === 'long100k') continue; // request line too long for Node anyway; see below
      add({ name: `authorize ${field}=${vn}`, target: az(authBase.map(([k, x]) => [k, k === field ? v : x])), kind: 'authorize' });
    }
  }
  for (const extra of ['login_hint', 'prompt', 'max_age', 'ui_locales', 'claims', 'request', 'request_uri', 'id_token_hint', 'acr_values', 'nonce', 'response_mode', 'display', 'registration', 'authorization_details', 'dpop_jkt']) {
    for (const [vn, v] of ODD_VALUES) {
      if (vn === 'long100k') continue;
      add({ name: `authorize +${extra}=${vn}`, target: `${az(authBase)}&${extra}=${v}`, kind: 'authorize' });
    }
  }
  add({ name: 'authorize claims bad json', target: `${az(authBase)}&claims=${enc('{"userinfo":')}`, kind: 'authorize' });
  add({ name: 'authorize claims array', target: `${az(authBase)}&claims=${enc('[1,2]')}`, kind: 'authorize' });
  add({ name: 'authorize claims deep', target: `${az(authBase)}&claims=${enc(`${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`)}`, kind: 'authorize' });
  add({ name: 'authorize request jwt garbage', target: `${az(authBase)}&request=a.b.c`, kind: 'authorize' });
  add({ name: 'authorize request_uri urn', target: `${az(authBase)}&request_uri=${enc('urn:ietf:params:oauth:request_uri:xyz')}`, kind: 'authorize' });
  add({ name: 'authorize max_age negative', target: `${az(authBase)}&max_age=-1`, kind: 'authorize' });
  add({ name: 'authorize max_age huge', target: `${az(authBase)}&max_age=99999999999999999999999`, kind: 'authorize' });
  add({ name: 'authorize response_mode form_post', target: `${az(authBase)}&response_mode=form_post`, kind: 'authorize' });
  add({ name: 'authorize response_mode jwt', target: `${az(authBase)}&response_mode=jwt`, kind: 'authorize' });
  add({ name: 'authorize 50 resources', target: `${az(authBase)}&${Array.from({ length: 50 }, (_, i) => `resource=${enc(`https://r${i}.example/`)}`).join('&')}`, kind: 'authorize' });
  add({ name: 'authorize resource bad url', target: `${az(authBase.filter(([k]) => k !== 'resource'))}&resource=${enc('not a url')}`, kind: 'authorize' });
  add({ name: 'authorize resource urn', target: `${az(authBase.filter(([k]) => k !== 'resource'))}&resource=${enc('urn:x:y')}`, kind: 'authorize' });
  add({ name: 'authorize unicode scope', target: az(authBase.map(([k, x]) => [k, k === 'scope' ? enc('openid ✓ 😀 account:read') : x])), kind: 'authorize' });
  add({ name: 'authorize scope 2000 entries', target: az(authBase.map(([k, x]) => [k, k === 'scope' ? enc(Array.from({ length: 2000 }, (_, i) => `s${i}`).join(' ')) : x])), kind: 'authorize' });
  add({ name: 'authorize client_id cimd url', target: az(authBase.map(([k, x]) => [k, k === 'client_id' ? enc('https://127.0.0.1:1/client.json') : x])), kind: 'authorize' });
  add({ name: 'authorize client_id cimd long url', target: az(authBase.map(([k, x]) => [k, k === 'client_id' ? enc(`https://x.example/${LONG(5000)}`) : x])), kind: 'authorize' });
  add({ name: 'authorize client_id cimd odd url', target: az(authBase.map(([k, x]) => [k, k === 'client_id' ? enc('https://user:pw@[::1]:99999/%zz') : x])), kind: 'authorize' });
  add({ name: 'authorize client_id http url', target: az(authBase.map(([k, x]) => [k, k === 'client_id' ? enc('http://x.example/c') : x])), kind: 'authorize' });
  add({ name: 'authorize redirect_uri js', target: az(authBase.map(([k, x]) => [k, k === 'redirect_uri' ? enc('javascript:alert(1)') : x])), kind: 'authorize' });
  add({ name: 'authorize redirect_uri loopback odd port', target: az(authBase.map(([k, x]) => [k, k === 'redirect_uri' ? enc('http://127.0.0.1:99999/callback') : x])), kind: 'authorize' });
  add({ name: 'authorize redirect_uri ipv6 loopback', target: az(authBase.map(([k, x]) => [k, k === 'redirect_uri' ? enc('http://[::1]:8765/callback') : x])), kind: 'authorize' });
  add({ name: 'authorize redirect_uri long', target: az(authBase.map(([k, x]) => [k, k === 'redirect_uri' ? enc(`http://127.0.0.1:8765/callback?${LONG(8000)}`) : x])), kind: 'authorize' });
  add({ name: 'authorize long query 60k', target: `${az(authBase)}&state2=${LONG(60_000)}`, kind: 'authorize' });
  add({ name: 'authorize operator client', target: az([['response_type', 'code'], ['client_id', 'demo-operator-app'], ['redirect_uri', enc(`${c.baseUrl}/demo/callback`)], ['scope', enc('openid account:read')], ['code_challenge', LONG(43, 'A')], ['code_challenge_method', 'S256']]), kind: 'authorize' });
  add({ name: 'authorize raw non-ascii target', target: '/oauth/authorize?client_id=\u00e9\u00ff&state=\u00e9', kind: 'authorize' });
  add({ name: 'authorize odd query', target: '/oauth/authorize?%zz&%&=&&==&a=%00', kind: 'authorize' });
  // not a path of the endpoint (404 is right): no authorization error page expected
  add({ name: 'authorize semicolons', target: '/oauth/authorize;x?client_id=demo-member-app' });
  for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'FOO']) {
    add({ name: `authorize method ${m}`, method: m, target: az(authBase), kind: m === 'HEAD' || m === 'OPTIONS' ? 'other' : 'authorize' });
  }
  add({ name: 'authorize POST form odd', method: 'POST', target: '/oauth/authorize', headers: [[...FORM]], body: `${form(authBase)}&client_id=%zz`, kind: 'authorize' });
  add({ name: 'authorize POST json', method: 'POST', target: '/oauth/authorize', headers: [[...JSON_CT]], body: '{"client_id":["a"]}', kind: 'authorize' });
  add({ name: 'authorize POST huge', method: 'POST', target: '/oauth/authorize', headers: [[...FORM]], body: `${form(authBase)}&x=${LONG(3_000_000)}`, kind: 'authorize' });
  add({ name: 'authorize malformed cookie', target: az(authBase), headers: [['Cookie', '_session=%zz; _session.sig=%; _interaction=\u00ff; ;;=;a']], kind: 'authorize' });
  add({ name: 'authorize huge cookie', target: az(authBase), headers: [['Cookie', `_session=${LONG(14_000)}; _session.legacy=${LONG(1000)}`]], kind: 'authorize' });
  add({ name: 'authorize session cookie random', target: az(authBase), headers: [['Cookie', '_session=abcdefghijklmnopqrstu; _session.sig=abcdefghijklmnopqrstuvwxyz0']], kind: 'authorize' });
  add({ name: 'authorize accept json', target: az(authBase.filter(([k]) => k !== 'client_id')), headers: [['Accept', 'application/json']], kind: 'authorize' });
  add({ name: 'authorize accept garbage', target: az(authBase.filter(([k]) => k !== 'client_id')), headers: [['Accept', ';;;q=x,*/*;q=abc'], ['Accept-Language', '\u00ff;q=1,,,;;;-*-'.replace('\u00ff', 'xx')]], kind: 'authorize' });
  add({ name: 'authorize accept-language long', target: az(authBase.filter(([k]) => k !== 'client_id')), headers: [['Accept-Language', Array.from({ length: 2000 }, (_, i) => `x${i};q=0.${i % 9}`).join(',')]], kind: 'authorize' });
  add({ name: 'authorize ui_locales odd', target: `${az(authBase.filter(([k]) => k !== 'client_id'))}&ui_locales=${enc('__proto__ constructor toString')}`, kind: 'authorize' });
  for (const p of ['/oauth/authorize/', '/oauth//authorize', '/oauth/authorize%2F', '/oauth%2Fauthorize', '/oauth/authorize/..', '/oauth/authorize/../authorize', '/OAUTH/authorize', '/oauth/authorize/x/y', '/oauth/authorize//']) {
    add({ name: `authorize path ${p}`, target: `${p}?${form(authBase)}` });
  }
  // resume path with odd uids
  const oddUids = ['x', '..', '%2e%2e', '%zz', '%00', '%', LONG(5000), 'a%2Fb', 'a/b', '\u00e9', '%C3%28', '__proto__', 'constructor', 'toString', `${c.uid}`, `${c.uid}/`, `${c.uid}%20`, `${c.uid}/x`, '*', '{a}', 'a:b', ' ', '%20', ';', "'", '"', '<script>'];
  for (const u of oddUids) {
    for (const withCookie of [false, true]) {
      const hh: [string, string][] = withCookie ? [['Cookie', c.cookies]] : [];
      // a uid with a '/' is not a resume path (404 is right there)
      add({ name: `resume GET /oauth/authorize/${u.slice(0, 20)} cookie=${withCookie}`, target: `/oauth/authorize/${u}`, headers: hh, ...(u.slice(0, -1).includes('/') ? {} : { kind: 'authorize' as const }) });
      add({ name: `interaction GET /oauth/interaction/${u.slice(0, 20)} cookie=${withCookie}`, target: `/oauth/interaction/${u}`, headers: hh });
      for (const action of ['login', 'confirm', 'abort']) {
        add({ name: `interaction POST ${action} ${u.slice(0, 20)} cookie=${withCookie}`, method: 'POST', target: `/oauth/interaction/${u}/${action}`, headers: [...hh, [...FORM]], body: 'email=a&password=b&csrf=x' });
      }
    }
  }
  // real interaction, malformed forms
  const ih: [string, string][] = [['Cookie', c.cookies]];
  const iBodies: [string, string, [string, string][]][] = [
    ['form dup', 'email=student%40example.com&email=x&password=student&password=y&csrf=x&csrf=y', [[...FORM]]],
    ['form pct', 'email=%zz&password=%&csrf=%00', [[...FORM]]],
    ['form bracket', 'email[]=a&password[a]=b&csrf[]=c', [[...FORM]]],
    ['form long', `email=${LONG(100_000)}&password=${LONG(100_000)}&csrf=x`, [[...FORM]]],
    ['form huge', `email=a&password=b&x=${LONG(3_000_000)}`, [[...FORM]]],
    ['json', '{"email":["a"],"password":{"a":1},"csrf":1}', [[...JSON_CT]]],
    ['json broken', '{"email":', [[...JSON_CT]]],
    ['text', 'email=a', [['Content-Type', 'text/plain']]],
    ['no ct', 'email=a', []],
    ['multipart', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na\r\n--x--\r\n', [['Content-Type', 'multipart/form-data; boundary=x']]],
    ['latin1', 'email=a', [['Content-Type', 'application/x-www-form-urlencoded; charset=latin1']]],
    ['bogus charset', 'email=a', [['Content-Type', 'application/x-www-form-urlencoded; charset=bogus']]],
    ['bad utf8', '', [[...FORM]]],
    ['gzip lie', 'email=a', [[...FORM], ['Content-Encoding', 'gzip']]],
    ['proto', '__proto__[x]=1&constructor[prototype][y]=2&email=a', [[...FORM]]],
    ['many params', Array.from({ length: 5000 }, (_, i) => `p${i}=1`).join('&'), [[...FORM]]],
  ];
  for (const action of ['login', 'confirm', 'abort']) {
    for (const [n, b, h] of iBodies) {
      add({
        name: `interaction real ${action} ${n}`, method: 'POST', target: `/oauth/interaction/${c.uid}/${action}`, headers: [...ih, ...h],
        body: n === 'bad utf8' ? Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x3d, 0xc3, 0x28, 0xff]) : b,
      });
    }
    for (const m of ['GET', 'PUT', 'DELETE', 'FOO']) add({ name: `interaction real ${action} method ${m}`, method: m, target: `/oauth/interaction/${c.uid}/${action}`, headers: ih });
  }
  for (const m of ['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'FOO']) add({ name: `interaction real page method ${m}`, method: m, target: `/oauth/interaction/${c.uid}`, headers: ih });
  add({ name: 'interaction real page odd accept', target: `/oauth/interaction/${c.uid}`, headers: [...ih, ['Accept', 'application/json'], ['Accept-Language', ';;;,,q=abc']] });
  add({ name: 'interaction query odd', target: `/oauth/interaction/${c.uid}?%zz&%&ui_locales=%00`, headers: ih });
  add({ name: 'interaction malformed cookies', target: `/oauth/interaction/${c.uid}`, headers: [['Cookie', `${c.cookies}; _interaction=%zz; _interaction.sig=%`]] });
  add({ name: 'interaction dup cookie header', target: `/oauth/interaction/${c.uid}`, headers: [['Cookie', c.cookies], ['Cookie', '_interaction=x']] });

  // ---------- discovery, jwks, protected resource ----------
  for (const p of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource', '/api/oauth/jwks',
    '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server/x', '/.well-known/openid-configuration/', '/.well-known//openid-configuration']) {
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'FOO']) add({ name: `${p} ${m}`, method: m, target: p });
    add({ name: `${p} odd query`, target: `${p}?%zz&%&a=%00&${LONG(8000)}` });
    add({ name: `${p} odd accept`, target: p, headers: [['Accept', 'text/html;q=abc, */*;q=-1, ;;;'], ['Accept-Encoding', 'br;q=x, gzip;q=2'], ['If-None-Match', '"x", W/"y", *'], ['If-Modified-Since', 'garbage']] });
    add({ name: `${p} range`, target: p, headers: [['Range', 'bytes=0-1,5-2,abc']] });
    add({ name: `${p} malformed cookie`, target: p, headers: [['Cookie', '_session=%zz;;;=;a=%']] });
    add({ name: `${p} bearer`, target: p, headers: [['Authorization', 'Bearer a b']] });
    add({ name: `${p} POST body`, method: 'POST', target: p, headers: [[...JSON_CT]], body: '{"x":' });
    add({ name: `${p} origin`, target: p, headers: [['Origin', 'null']] });
  }

  // ---------- userinfo ----------
  const ui = '/api/oauth/userinfo';
  const uiAuth: [string, string][] = [
    ['none', ''], ['bearer ok', `Bearer ${c.memberToken}`], ['bearer lower', `bearer ${c.memberToken}`], ['bearer spaces', 'Bearer a b c'],
    ['bearer 2 spaces', `Bearer  ${c.memberToken}`], ['bearer trailing', `Bearer ${c.memberToken} `], ['bearer empty', 'Bearer '], ['bearer only', 'Bearer'],
    ['bearer long', `Bearer ${LONG(14_000)}`], ['bearer latin1', 'Bearer \u00e9\u00ff'], ['basic', 'Basic eDp5'], ['basic no colon', `Basic ${Buffer.from('x').toString('base64')}`],
    ['jwt-ish', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'], ['jwt garbage', 'Bearer a.b.c'], ['operator', `Bearer ${c.operatorToken}`],
    ['pct token', 'Bearer %zz%00'], ['tab', `Bearer\t${c.memberToken}`], ['dpop', `DPoP ${c.memberToken}`], ['refresh as access', `Bearer ${c.refreshToken}`],
  ];
  for (const [n, v] of uiAuth) {
    for (const m of ['GET', 'POST']) {
      add({ name: `userinfo ${m} ${n}`, method: m, target: ui, headers: v ? [['Authorization', v]] : [] });
    }
  }
  add({ name: 'userinfo dup authz', target: ui, headers: [['Authorization', `Bearer ${c.memberToken}`], ['Authorization', 'Bearer x']] });
  add({ name: 'userinfo query token', target: `${ui}?access_token=${c.memberToken}` });
  add({ name: 'userinfo query token dup', target: `${ui}?access_token=${c.memberToken}&access_token=x`, headers: [['Authorization', `Bearer ${c.memberToken}`]] });
  const uiPost: [string, string, [string, string][]][] = [
    ['form token', `access_token=${enc(c.memberToken)}`, [[...FORM]]],
    ['form token dup', `access_token=${enc(c.memberToken)}&access_token=x`, [[...FORM]]],
    ['form token + header', `access_token=${enc(c.memberToken)}`, [[...FORM], ['Authorization', `Bearer ${c.memberToken}`]]],
    ['form pct', 'access_token=%zz', [[...FORM]]],
    ['form bracket', 'access_token[]=a', [[...FORM]]],
    ['form huge', `access_token=${LONG(3_000_000)}`, [[...FORM]]],
    ['form 200k', `access_token=${LONG(200_000)}`, [[...FORM]]],
    ['json', `{"access_token":"${c.memberToken}"}`, [[...JSON_CT]]],
    ['json array', '{"access_token":["a"]}', [[...JSON_CT]]],
    ['json broken', '{"access_token":', [[...JSON_CT]]],
    ['text', 'x', [['Content-Type', 'text/plain']]],
    ['latin1 form', `access_token=${enc(c.memberToken)}`, [['Content-Type', 'application/x-www-form-urlencoded; charset=latin1']]],
    ['bogus charset form', `access_token=${enc(c.memberToken)}`, [['Content-Type', 'application/x-www-form-urlencoded; charset=bogus']]],
    ['gzip lie', `access_token=${enc(c.memberToken)}`, [[...FORM], ['Content-Encoding', 'gzip']]],
    ['bad enc', `access_token=${enc(c.memberToken)}`, [[...FORM], ['Content-Encoding', 'x-bogus']]],
    ['bad utf8', '', [[...FORM]]],
    ['length > body', 'access_token=x', [[...FORM], ['Content-Length', '400']]],
    ['multipart', '--x\r\nContent-Disposition: form-data; name="access_token"\r\n\r\na\r\n--x--\r\n', [['Content-Type', 'multipart/form-data; boundary=x']]],
  ];
  for (const [n, b, h] of uiPost) {
    add({ name: `userinfo POST ${n}`, method: 'POST', target: ui, headers: h, body: n === 'bad utf8' ? Buffer.from([0x61, 0x3d, 0xc3, 0x28, 0xff]) : b, autoLength: n !== 'length > body' });
  }
  for (const m of ['PUT', 'DELETE', 'HEAD', 'OPTIONS', 'FOO', 'PATCH']) add({ name: `userinfo method ${m}`, method: m, target: ui, headers: [['Authorization', `Bearer ${c.memberToken}`]] });
  for (const p of [`${ui}/`, `${ui}//`, '/api/oauth/USERINFO', `${ui}%2F`, '/api/oauth/userinfo/..']) add({ name: `userinfo path ${p}`, target: p, headers: [['Authorization', `Bearer ${c.memberToken}`]] });

  // ---------- Account API ----------
  const gq = '/account/graphql';
  const mb: [string, string] = ['Authorization', `Bearer ${c.memberToken}`];
  const gqBodies: [string, string | Buffer, [string, string][]][] = [
    ['ok', '{"query":"{ viewer { id } }"}', [[...JSON_CT]]],
    ['broken json', '{"query":', [[...JSON_CT]]],
    ['empty', '', [[...JSON_CT]]],
    ['null', 'null', [[...JSON_CT]]],
    ['string', '"{ viewer { id } }"', [[...JSON_CT]]],
    ['number', '42', [[...JSON_CT]]],
    ['query array', '{"query":["{ viewer { id } }"]}', [[...JSON_CT]]],
    ['query object', '{"query":{"a":1}}', [[...JSON_CT]]],
    ['query null', '{"query":null}', [[...JSON_CT]]],
    ['query number', '{"query":1}', [[...JSON_CT]]],
    ['variables string', '{"query":"query($n:Int){ viewer { id } }","variables":"{\\"n\\":1}"}', [[...JSON_CT]]],
    ['variables array', '{"query":"{ viewer { id } }","variables":[1]}', [[...JSON_CT]]],
    ['variables wrong type', '{"query":"query($n:Int!){ viewer { enrolledCourses(first:$n){ nodes { slug } } } }","variables":{"n":"abc"}}', [[...JSON_CT]]],
    ['variables huge int', '{"query":"query($n:Int!){ viewer { enrolledCourses(first:$n){ nodes { slug } } } }","variables":{"n":1e308}}', [[...JSON_CT]]],
    ['first negative', '{"query":"{ viewer { enrolledCourses(first:-1){ nodes { slug } } } }"}', [[...JSON_CT]]],
    ['first huge', '{"query":"{ viewer { enrolledCourses(first:2147483647){ nodes { slug } } } }"}', [[...JSON_CT]]],
    ['first overflow', '{"query":"{ viewer { enrolledCourses(first:99999999999){ nodes { slug } } } }"}', [[...JSON_CT]]],
    ['after garbage', '{"query":"{ viewer { enrolledCourses(first:1, after:\\"%zz\\u0000\\"){ nodes { slug } } } }"}', [[...JSON_CT]]],
    ['after b64 garbage', `{"query":"{ viewer { enrolledCourses(first:1, after:\\"${Buffer.from('{"x":[1,2]}').toString('base64')}\\"){ nodes { slug } } } }"}`, [[...JSON_CT]]],
    ['after b64 neg', `{"query":"{ viewer { enrolledCourses(first:1, after:\\"${Buffer.from('-5').toString('base64')}\\"){ nodes { slug } } } }"}`, [[...JSON_CT]]],
    ['after b64 number huge', `{"query":"{ viewer { enrolledCourses(first:1, after:\\"${Buffer.from('99999999999999999999').toString('base64')}\\"){ nodes { slug } } } }"}`, [[...JSON_CT]]],
    ['operationName array', '{"query":"{ viewer { id } }","operationName":["a"]}', [[...JSON_CT]]],
    ['operationName missing op', '{"query":"query A { viewer { id } } query B { viewer { id } }"}', [[...JSON_CT]]],
    ['extensions odd', '{"query":"{ viewer { id } }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"x"}}}', [[...JSON_CT]]],
    ['extensions string', '{"query":"{ viewer { id } }","extensions":"x"}', [[...JSON_CT]]],
    ['syntax error', '{"query":"{ viewer { id "}', [[...JSON_CT]]],
    ['unknown field', '{"query":"{ nope }"}', [[...JSON_CT]]],
    ['introspection', '{"query":"{ __schema { types { name } } }"}', [[...JSON_CT]]],
    ['typename', '{"query":"{ __typename }"}', [[...JSON_CT]]],
    ['mutation', '{"query":"mutation { x }"}', [[...JSON_CT]]],
    ['subscription', '{"query":"subscription { x }"}', [[...JSON_CT]]],
    ['deep nesting', JSON.stringify({ query: `{ viewer ${'{ id '.repeat(1)}}${'}'.repeat(0)}`.replace('{ viewer { id }', `{ viewer ${'{ enrolledCourses(first:1) { nodes '.repeat(300)}{ slug }${' }'.repeat(600)} }`) }), [[...JSON_CT]]],
    ['deep braces', JSON.stringify({ query: `${'{'.repeat(50_000)}${'}'.repeat(50_000)}` }), [[...JSON_CT]]],
    ['many aliases', JSON.stringify({ query: `{ ${Array.from({ length: 5000 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }` }), [[...JSON_CT]]],
    ['many fragments', JSON.stringify({ query: `{ viewer { ...F0 } } ${Array.from({ length: 500 }, (_, i) => `fragment F${i} on ${'Viewer'} { id ${i < 499 ? `...F${i + 1}` : ''} }`).join(' ')}` }), [[...JSON_CT]]],
    ['fragment cycle', JSON.stringify({ query: '{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }' }), [[...JSON_CT]]],
    ['directive spam', JSON.stringify({ query: `{ viewer ${'@include(if:true) '.repeat(5000)}{ id } }` }), [[...JSON_CT]]],
    ['huge string literal', JSON.stringify({ query: `{ viewer { id } } # ${LONG(500_000)}` }), [[...JSON_CT]]],
    ['huge 3MB', JSON.stringify({ query: `{ viewer { id } } # ${LONG(3_000_000)}` }), [[...JSON_CT]]],
    ['batched', '[{"query":"{ viewer { id } }"},{"query":"{ viewer { email } }"}]', [[...JSON_CT]]],
    ['batched 1000', JSON.stringify(Array.from({ length: 1000 }, () => ({ query: '{ viewer { id } }' }))), [[...JSON_CT]]],
    ['batched empty', '[]', [[...JSON_CT]]],
    ['batched junk', '[1,"a",null]', [[...JSON_CT]]],
    ['json deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, [[...JSON_CT]]],
    ['proto', '{"__proto__":{"query":"{ viewer { id } }"}}', [[...JSON_CT]]],
    ['lone surrogate', '{"query":"{ viewer { id } } # \\ud800"}', [[...JSON_CT]]],
    ['bad utf8', Buffer.from([0x7b, 0x22, 0x71, 0x75, 0x65, 0x72, 0x79, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]), [[...JSON_CT]]],
    ['bom', '\ufeff{"query":"{ viewer { id } }"}', [[...JSON_CT]]],
    ['form ct', 'query=%7B+viewer+%7B+id+%7D+%7D', [[...FORM]]],
    ['graphql ct', '{ viewer { id } }', [['Content-Type', 'application/graphql']]],
    ['text ct', '{"query":"{ viewer { id } }"}', [['Content-Type', 'text/plain']]],
    ['no ct', '{"query":"{ viewer { id } }"}', []],
    ['dup ct', '{"query":"{ viewer { id } }"}', [[...JSON_CT], ['Content-Type', 'text/plain']]],
    ['ct latin1', '{"query":"{ viewer { id } }"}', [['Content-Type', 'application/json; charset=latin1']]],
    ['ct utf16', '{"query":"{ viewer { id } }"}', [['Content-Type', 'application/json; charset=utf-16']]],
    ['ct quoted', '{"query":"{ viewer { id } }"}', [['Content-Type', 'application/json; charset="UTF-8"']]],
    ['ct garbage params', '{"query":"{ viewer { id } }"}', [['Content-Type', 'application/json; ;;; charset']]],
    ['ct +json', '{"query":"{ viewer { id } }"}', [['Content-Type', 'application/graphql-response+json']]],
    ['gzip lie', '{"query":"{ viewer { id } }"}', [[...JSON_CT], ['Content-Encoding', 'gzip']]],
    ['chunked', '1f\r\n{"query":"{ viewer { id } }"}\r\n0\r\n\r\n', [[...JSON_CT], ['Transfer-Encoding', 'chunked']]],
    ['accept odd', '{"query":"{ viewer { id } }"}', [[...JSON_CT], ['Accept', 'text/event-stream']]],
    ['accept multipart', '{"query":"{ viewer { id } }"}', [[...JSON_CT], ['Accept', 'multipart/mixed']]],
    ['accept garbage', '{"query":"{ viewer { id } }"}', [[...JSON_CT], ['Accept', ';;;q=abc']]],
    ['defer', '{"query":"{ viewer { id ... @defer { email } } }"}', [[...JSON_CT], ['Accept', 'multipart/mixed']]],
  ];
  for (const [n, b, h] of gqBodies) {
    add({ name: `graphql ${n}`, method: 'POST', target: gq, headers: [mb, ...h], body: b, autoLength: n !== 'chunked' });
  }
  add({ name: 'graphql length > body', method: 'POST', target: gq, headers: [mb, [...JSON_CT], ['Content-Length', '500']], body: '{}', autoLength: false });
  for (const [n, v] of uiAuth) add({ name: `graphql auth ${n}`, method: 'POST', target: gq, headers: [...(v ? [['Authorization', v] as [string, string]] : []), [...JSON_CT]], body: '{"query":"{ viewer { id } }"}' });
  for (const m of ['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'FOO', 'PATCH']) {
    add({ name: `graphql method ${m}`, method: m, target: `${gq}?query=%7B+viewer+%7B+id+%7D+%7D`, headers: [mb] });
    add({ name: `graphql method ${m} html`, method: m, target: gq, headers: [mb, ['Accept', 'text/html']] });
  }
  add({ name: 'graphql OPTIONS preflight', method: 'OPTIONS', target: gq, headers: [['Origin', 'https://x.example'], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'authorization,content-type']] });
  for (const p of [`${gq}/`, '/account//graphql', '/account/GraphQL', '/account%2Fgraphql', `${gq}?x=%zz`]) add({ name: `graphql path ${p}`, method: 'POST', target: p, headers: [mb, [...JSON_CT]], body: '{"query":"{ viewer { id } }"}' });

  // ---------- MCP ----------
  const mcp = '/mcp';
  const MCPH: [string, string][] = [[...JSON_CT], ['Accept', 'application/json, text/event-stream']];
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
  const call = (name: unknown, args: unknown = {}) => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });
  const mcpBodies: [string, string | Buffer, [string, string][]][] = [
    ['init', JSON.stringify(init), []],
    ['tools/list', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['broken', '{"jsonrpc":', []],
    ['empty', '', []],
    ['null', 'null', []],
    ['number', '1', []],
    ['string', '"x"', []],
    ['array empty', '[]', []],
    ['array junk', '[1,null,"x"]', []],
    ['batch 2', JSON.stringify([init, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]), []],
    ['batch 1000', JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))), [['MCP-Protocol-Version', '2025-03-26']]],
    ['batch calls', JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ ...call('search_courses', { query: 'a' }), id: i }))), [['MCP-Protocol-Version', '2025-03-26']]],
    ['jsonrpc 1.0', JSON.stringify({ ...init, jsonrpc: '1.0' }), []],
    ['jsonrpc missing', JSON.stringify({ id: 1, method: 'initialize' }), []],
    ['jsonrpc number', JSON.stringify({ ...init, jsonrpc: 2 }), []],
    ['id object', JSON.stringify({ ...init, id: { a: 1 } }), []],
    ['id null', JSON.stringify({ ...init, id: null }), []],
    ['id huge', JSON.stringify({ ...init, id: LONG(100_000) }), []],
    ['method number', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 5 }), []],
    ['method unknown', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope/x' }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['method proto', JSON.stringify({ jsonrpc: '2.0', id: 1, method: '__proto__' }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['params array', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: [1] }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['params string', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'x' }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name number', JSON.stringify(call(5)), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name object', JSON.stringify(call({ a: 1 })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name unknown', JSON.stringify(call('nope')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name proto', JSON.stringify(call('__proto__')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name constructor', JSON.stringify(call('constructor')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name toString', JSON.stringify(call('toString')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name hasOwnProperty', JSON.stringify(call('hasOwnProperty')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call name long', JSON.stringify(call(LONG(100_000))), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call member tool anon', JSON.stringify(call('list_my_courses')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call operator tool anon', JSON.stringify(call('list_site_courses')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search args array', JSON.stringify(call('search_courses', [1])), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search args string', JSON.stringify(call('search_courses', 'x')), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search query huge', JSON.stringify(call('search_courses', { query: LONG(500_000) })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search odd', JSON.stringify(call('search_courses', { query: { a: 1 }, first: -1, after: '%zz', site: '__proto__' })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search first huge', JSON.stringify(call('search_courses', { query: 'a', first: 1e308, after: 'eyJ4IjpbMV19' })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call search site odd', JSON.stringify(call('search_courses', { site: LONG(10_000) })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call outline odd', JSON.stringify(call('get_course_outline', { slug: '../../etc/passwd\u0000', site: 'constructor' })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call outline slug obj', JSON.stringify(call('get_course_outline', { slug: { a: 1 } })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['call whoami args junk', JSON.stringify(call('whoami', { a: [1, { b: null }] })), [['MCP-Protocol-Version', '2025-06-18']]],
    ['response message', JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['error message', JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['notification', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['notification cancel', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } }), [['MCP-Protocol-Version', '2025-06-18']]],
    ['json deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, []],
    ['obj deep', JSON.stringify(call('search_courses', JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`))), [['MCP-Protocol-Version', '2025-06-18']]],
    ['huge 5MB', JSON.stringify({ ...init, x: LONG(5_000_000) }), []],
    ['lone surrogate', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_courses","arguments":{"query":"\\ud800"}}}', [['MCP-Protocol-Version', '2025-06-18']]],
    ['bad utf8', Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_courses","arguments":{"query":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}}')]), [['MCP-Protocol-Version', '2025-06-18']]],
    ['bom', `\ufeff${JSON.stringify(init)}`, []],
    // protocol-version and header combos
    ['pv bogus', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', 'bogus']]],
    ['pv long', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', LONG(8000)]]],
    ['pv dup', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2025-06-18'], ['MCP-Protocol-Version', '2026-07-28']]],
    ['pv modern list', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/list']]],
    ['pv modern no mcp-method', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2026-07-28']]],
    ['pv modern mismatch method', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call']]],
    ['pv modern call no name', JSON.stringify(call('search_courses', { query: 'a' })), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call']]],
    ['pv modern call name mismatch', JSON.stringify(call('search_courses', { query: 'a' })), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call'], ['Mcp-Name', 'whoami']]],
    ['pv modern member tool anon mismatch', JSON.stringify(call('list_my_courses')), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call'], ['Mcp-Name', 'x']]],
    ['pv modern member tool anon ok headers', JSON.stringify(call('list_my_courses')), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call'], ['Mcp-Name', 'list_my_courses']]],
    ['pv modern batch', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/list']]],
    ['pv modern init', JSON.stringify({ ...init, params: { ...init.params, protocolVersion: '2026-07-28' } }), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'initialize']]],
    ['pv modern meta junk', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: 'x' } }), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/list']]],
    ['pv modern meta deep', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/x': [1, { a: null }] } } }), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/list']]],
    ['pv modern mcp-name non-ascii', JSON.stringify(call('search_courses', { query: 'a' })), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call'], ['Mcp-Name', '\u00e9\u00ff']]],
    ['pv modern param header', JSON.stringify(call('search_courses', { query: 'a' })), [['MCP-Protocol-Version', '2026-07-28'], ['Mcp-Method', 'tools/call'], ['Mcp-Name', 'search_courses'], ['Mcp-Param-Query', '=?base64?%zz?='], ['Mcp-Param-X', LONG(5000)]]],
    ['pv modern padded', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', ' 2026-07-28 '], ['Mcp-Method', 'tools/list']]],
    ['mcp-method only', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['Mcp-Method', 'initialize']]],
    ['mcp-session-id', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2025-06-18'], ['Mcp-Session-Id', '%zz\u00ff']]],
    ['last-event-id', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), [['MCP-Protocol-Version', '2025-06-18'], ['Last-Event-ID', 'x']]],
  ];
  const ctVariantsMcp: [string, [string, string][]][] = [
    ['std', MCPH],
    ['accept json only', [[...JSON_CT], ['Accept', 'application/json']]],
    ['accept sse only', [[...JSON_CT], ['Accept', 'text/event-stream']]],
    ['no accept', [[...JSON_CT]]],
  ];
  for (const [n, b, h] of mcpBodies) {
    add({ name: `mcp ${n}`, method: 'POST', target: mcp, headers: [...MCPH, ...h], body: b });
    add({ name: `mcp ${n} member`, method: 'POST', target: mcp, headers: [...MCPH, ...h, mb], body: b });
  }
  for (const [n, h] of ctVariantsMcp) add({ name: `mcp ct ${n}`, method: 'POST', target: mcp, headers: h, body: JSON.stringify(init) });
  const mcpCts = ['text/plain', 'application/json; charset=latin1', 'application/json; charset="utf-8"', 'application/json; charset=utf-16', 'application/json;;;', '', 'application/jsonx', 'application/vnd.api+json', 'multipart/form-data'];
  for (const ct of mcpCts) add({ name: `mcp ct '${ct}'`, method: 'POST', target: mcp, headers: [['Content-Type', ct], ['Accept', 'application/json, text/event-stream']], body: JSON.stringify(init) });
  add({ name: 'mcp no ct', method: 'POST', target: mcp, headers: [['Accept', 'application/json, text/event-stream']], body: JSON.stringify(init) });
  add({ name: 'mcp dup ct', method: 'POST', target: mcp, headers: [...MCPH, ['Content-Type', 'text/plain']], body: JSON.stringify(init) });
  add({ name: 'mcp gzip lie', method: 'POST', target: mcp, headers: [...MCPH, ['Content-Encoding', 'gzip']], body: JSON.stringify(init) });
  add({ name: 'mcp length > body', method: 'POST', target: mcp, headers: [...MCPH, ['Content-Length', '500']], body: JSON.stringify(init), autoLength: false });
  for (const [n, v] of uiAuth) add({ name: `mcp auth ${n}`, method: 'POST', target: mcp, headers: [...MCPH, ...(v ? [['Authorization', v] as [string, string]] : [])], body: JSON.stringify(call('whoami')) });
  for (const m of ['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'FOO', 'PATCH']) add({ name: `mcp method ${m}`, method: m, target: mcp, headers: [['Accept', 'text/event-stream']] });
  add({ name: 'mcp OPTIONS preflight', method: 'OPTIONS', target: mcp, headers: [['Origin', 'https://x.example'], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'authorization,content-type,mcp-protocol-version']] });
  for (const origin of ['null', 'https://evil.example', '%zz', `${c.baseUrl}`, 'http://127.0.0.1:1', 'http://[::1]:1', 'file://', LONG(5000)]) {
    add({ name: `mcp origin ${origin.slice(0, 30)}`, method: 'POST', target: mcp, headers: [...MCPH, ['Origin', origin]], body: JSON.stringify(init) });
  }
  for (const host of ['evil.example', '', '127.0.0.1:1', '[::1]', `${base.host}.`, LONG(3000), 'a b']) {
    add({ name: `mcp host ${host.slice(0, 30)}`, method: 'POST', target: mcp, headers: [['Host', host], ...MCPH], body: JSON.stringify(init) });
  }
  add({ name: 'mcp X-Forwarded-Host', method: 'POST', target: mcp, headers: [...MCPH, ['X-Forwarded-Host', 'evil.example, %zz'], ['X-Forwarded-For', 'garbage, ::::'], ['X-Forwarded-Proto', 'gopher']], body: JSON.stringify(init) });
  for (const p of ['/mcp/', '//mcp', '/MCP', '/mcp%2F', '/mcp?x=%zz&%', '/mcp/..', '/mcp;x', `/mcp?${LONG(10_000)}`]) add({ name: `mcp path ${p.slice(0, 30)}`, method: 'POST', target: p, headers: MCPH, body: JSON.stringify(init) });

  // ---------- docs ----------
  for (const p of ['/openapi.json', '/auth.md']) {
    for (const accept of ['', 'application/json', 'text/markdown', 'text/html', 'image/png', '*/*;q=0', ';;;;', 'text/*;q=abc, */*;q=-1', LONG(8000, 'x,'), 'application/json;q=0, text/markdown;q=0']) {
      add({ name: `${p} accept '${accept.slice(0, 20)}'`, target: p, headers: accept ? [['Accept', accept]] : [] });
    }
    for (const m of ['HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'FOO']) add({ name: `${p} ${m}`, method: m, target: p });
    add({ name: `${p} post body`, method: 'POST', target: p, headers: [[...JSON_CT]], body: '{"a":' });
    add({ name: `${p} query`, target: `${p}?%zz&%&a=%00` });
    add({ name: `${p} bearer junk`, target: p, headers: [['Authorization', 'Bearer a b']] });
    add({ name: `${p} bearer ok`, target: p, headers: [mb] });
    add({ name: `${p} if-none-match`, target: p, headers: [['If-None-Match', 'garbage, *, W/""']] });
    add({ name: `${p} range`, target: p, headers: [['Range', 'bytes=99999999-']] });
    add({ name: `${p} accept-encoding`, target: p, headers: [['Accept-Encoding', 'gzip;q=abc, br, x-bogus, *;q=0']] });
    for (const q of [`${p}/`, `/${p}`, p.toUpperCase(), `${p}%00`, `${p}/..`]) add({ name: `${p} path ${q}`, target: q });
  }

  // ---------- host pages + admin API ----------
  const hostGets = ['/', '/demo/callback', '/demo/callback?code=%zz&state=%&iss=%00&error=%C3', '/demo/callback?code=a&code=b', '/sign-in', '/sign-in?%zz', '/connected-apps', '/connected-apps/', '/connected-apps/x',
    '/connected-apps/sign-in', '/connected-apps/revoke', '/admin', '/admin/', '/admin/staff', '/admin/staff/trace', '/admin/staff/trace?client=%zz', `/admin/staff/trace?client_id=${LONG(5000)}`,
    '/admin/sites/demo-school/apps', '/admin/sites/%zz/apps', '/admin/sites/%/apps', '/admin/sites/__proto__/apps', '/admin/sites/demo-school/apps/%zz', '/admin/sites/demo-school/apps/__proto__',
    `/admin/sites/${LONG(5000)}/apps`, '/admin/api/courses', '/admin/api/courses/', '/nope', '/%zz', '/%', '/%00', '/a%2Fb', '//', '/..', '/./', `/${LONG(7000)}`];
  for (const g of hostGets) {
    add({ name: `host GET ${g.slice(0, 40)}`, target: g });
    add({ name: `host GET ${g.slice(0, 40)} bad cookie`, target: g, headers: [['Cookie', 'admin_session=%zz; admin_session.sig=%; member_session=\u00ff; host_session=' + LONG(12000)]] });
  }
  for (const [n, v] of uiAuth) add({ name: `admin api auth ${n}`, target: '/admin/api/courses', headers: v ? [['Authorization', v]] : [] });
  for (const m of ['POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'FOO']) add({ name: `admin api method ${m}`, method: m, target: '/admin/api/courses', headers: [['Authorization', `Bearer ${c.operatorToken}`]] });
  const hostPosts = ['/sign-in', '/sign-in/cancel', '/sign-out', '/admin/sign-in', '/admin/sign-out', '/admin/sites/demo-school/apps', '/admin/sites/demo-school/apps/x/rotate', '/admin/sites/demo-school/apps/x/delete',
    '/connected-apps/sign-in', '/connected-apps/sign-out', '/connected-apps/revoke', '/admin/sites/%zz/apps', '/admin/sites/__proto__/apps/constructor/delete'];
  const hostPostBodies: [string, string | Buffer, [string, string][]][] = [
    ['empty form', '', [[...FORM]]],
    ['form creds', 'email=admin%40example.com&password=admin&csrf=x', [[...FORM]]],
    ['form dup', 'email=a&email=b&password[]=c&csrf=%zz', [[...FORM]]],
    ['form long', `email=${LONG(200_000)}&password=x`, [[...FORM]]],
    ['form huge', `email=a&x=${LONG(3_000_000)}`, [[...FORM]]],
    ['json', '{"email":["a"],"password":{"x":1}}', [[...JSON_CT]]],
    ['json broken', '{"email":', [[...JSON_CT]]],
    ['text', 'x', [['Content-Type', 'text/plain']]],
    ['bad utf8', Buffer.from([0x65, 0x3d, 0xc3, 0x28, 0xff]), [[...FORM]]],
    ['gzip lie', 'email=a', [[...FORM], ['Content-Encoding', 'gzip']]],
    ['latin1', 'email=a', [['Content-Type', 'application/x-www-form-urlencoded; charset=latin1']]],
    ['bogus charset', 'email=a', [['Content-Type', 'application/x-www-form-urlencoded; charset=bogus']]],
    ['proto', '__proto__[x]=1&constructor[prototype][y]=2&email=a', [[...FORM]]],
  ];
  for (const p of hostPosts) {
    for (const [n, b, h] of hostPostBodies) add({ name: `host POST ${p} ${n}`, method: 'POST', target: p, headers: h, body: b });
    add({ name: `host POST ${p} bad cookie`, method: 'POST', target: p, headers: [[...FORM], ['Cookie', 'admin_session=%zz; admin_session.sig=%; ;;=;']], body: 'csrf=x' });
  }

  // ---------- global oddities ----------
  add({ name: 'absolute-form target', target: 'http://evil.example/.well-known/openid-configuration' });
  add({ name: 'absolute-form token', method: 'POST', target: 'http://evil.example/api/oauth/token', headers: [[...FORM]], body: 'grant_type=x', kind: 'oauth' });
  add({ name: 'asterisk target', method: 'OPTIONS', target: '*' });
  add({ name: 'huge header 15k', target: '/.well-known/openid-configuration', headers: [['X-Junk', LONG(15_000)]] });
  add({ name: 'many headers', target: '/.well-known/openid-configuration', headers: Array.from({ length: 150 }, (_, i) => [`X-H${i}`, 'v'] as const) });
  add({ name: 'x-request-id odd', target: '/.well-known/openid-configuration', headers: [['X-Request-Id', `\u00ff${LONG(5000)}`]] });
  add({ name: 'x-request-id odd mcp', method: 'POST', target: mcp, headers: [...MCPH, ['X-Request-Id', '%zz\u00ff; "x"']], body: JSON.stringify(init) });
  add({ name: 'x-request-id odd token', method: 'POST', target: '/api/oauth/token', headers: [[...FORM], ['X-Request-Id', LONG(5000)]], body: 'grant_type=x', kind: 'oauth' });
  add({ name: 'x-forwarded junk token', method: 'POST', target: '/api/oauth/token', headers: [[...FORM], ['X-Forwarded-For', '::::, garbage'], ['X-Forwarded-Host', '%zz'], ['X-Forwarded-Proto', 'gopher, https']], body: 'grant_type=x', kind: 'oauth' });
  add({ name: 'x-forwarded junk authorize', target: az(authBase), headers: [['X-Forwarded-For', '::::, garbage'], ['X-Forwarded-Host', '%zz'], ['X-Forwarded-Proto', 'gopher']], kind: 'authorize' });
  add({ name: 'host header odd token', method: 'POST', target: '/api/oauth/token', headers: [['Host', 'a b%zz'], [...FORM]], body: 'grant_type=x', kind: 'oauth' });
  return cases;
}
