/**
 * README.md's options table is generated from the option declarations by
 * scripts/options-table.ts. This fails when a declaration, its TSDoc or a default changed
 * without the table being regenerated, like oidc-provider's generated-docs check.
 */
import { readFileSync } from 'node:fs';

import { ACCOUNT_API_RANGES } from '../../lib/account-api/options.ts';
import { OPTION_DEFAULTS } from '../../lib/config/options.ts';
import type { PlatformAuthOptions } from '../../lib/config/options.ts';
import { DEFAULT_TTL } from '../../lib/constants.ts';
import { MCP_DEFAULTS, MCP_RANGES } from '../../lib/mcp/options.ts';
import { PAGES_DEFAULTS } from '../../lib/pages/options.ts';
import {
  checkReadme, collectOptions, END_MARKER, formatValue, OUT_OF_DATE, README_PATH, renderTable, replaceTable, START_MARKER,
} from '../../scripts/options-table.ts';
import type { OptionRow } from '../../scripts/options-table.ts';

let rows: OptionRow[];
let table: string;
const readme = readFileSync(README_PATH, 'utf8');

beforeAll(async () => {
  rows = await collectOptions();
  table = renderTable(rows);
});

describe('README options table', () => {
  it('is what scripts/options-table.ts generates from the declarations', () => {
    // throws OUT_OF_DATE, which says how to fix it
    checkReadme(readme, table);
  });

  it('the check fails on a README that differs', () => {
    const edited = readme.replace('| `ttl.accessToken` | `number` | `3600` |', '| `ttl.accessToken` | `number` | `7200` |');
    expect(edited).not.toBe(readme);
    expect(() => checkReadme(edited, table)).toThrow(OUT_OF_DATE);
    expect(() => checkReadme(readme, table.replace('| `proxy` |', '| `trustProxy` |'))).toThrow(OUT_OF_DATE);
    expect(() => checkReadme(readme.replace(START_MARKER, ''), table)).toThrow(/needs <!-- options-table:start -->/);
  });

  it('keeps the prose around the markers', () => {
    const replaced = replaceTable(`before\n${START_MARKER}\nold\n${END_MARKER}\nafter\n`, '| t |');
    expect(replaced.startsWith(`before\n${START_MARKER}\n`)).toBe(true);
    expect(replaced.endsWith(`\n| t |\n${END_MARKER}\nafter\n`)).toBe(true);
  });
});

describe('the generated rows', () => {
  const byPath = (path: string) => rows.find((r) => r.path === path);

  it('list every option of PlatformAuthOptions and the nested option interfaces', () => {
    const top: (keyof PlatformAuthOptions)[] = [
      'baseUrl', 'accounts', 'sites', 'clients', 'adapter', 'jwks', 'cookieKeys', 'idTokens', 'operatorRoles', 'ttl',
      'refreshTokenGrace', 'refreshTokenRateLimit', 'introspectionClients', 'proxy', 'proxyHops', 'signInThrottle', 'authorizationRateLimit', 'production', 'logger', 'memberData', 'accountApi',
      'registration', 'clientIdMetadataDocuments', 'memberClients', 'mcp', 'docs', 'signIn', 'pages', 'events', 'trace', 'metrics',
    ];
    expect(rows.filter((r) => !r.path.includes('.')).map((r) => r.path).sort()).toEqual([...top].sort());
    expect(new Set(rows.map((r) => r.path)).size).toBe(rows.length);
    for (const path of ['ttl.grant', 'accountApi.maxCost', 'registration.variant', 'clientIdMetadataDocuments.reviewed',
      'memberClients.betaEnabled', 'mcp.maxIdleServers', 'docs.openapi.extend', 'docs.authMd.limits',
      'signIn.session', 'signIn.loginUrl', 'pages.brand.accentColor', 'pages.locales', 'pages.templates']) {
      expect(byPath(path)).toBeDefined();
    }
  });

  it('print the runtime value of a linked default', () => {
    expect(byPath('ttl.refreshToken')!.default).toBe(`\`${DEFAULT_TTL.refreshToken}\``);
    expect(byPath('operatorRoles')!.default).toBe(`\`${formatValue(OPTION_DEFAULTS.operatorRoles)}\``);
    expect(byPath('operatorRoles')!.default).toBe('`[\'owner\', \'admin\']`');
    expect(byPath('accountApi.maxBodyBytes')!.default).toBe(`\`${ACCOUNT_API_RANGES.maxBodyBytes.default}\``);
    expect(byPath('mcp.maxPageSize')!.default).toBe(`\`${MCP_RANGES.maxPageSize.default}\``);
    expect(byPath('mcp.serverInfo')!.default).toBe(`\`${formatValue(MCP_DEFAULTS.serverInfo)}\``);
    expect(byPath('pages.brand.accentColor')!.default).toBe(`\`${formatValue(PAGES_DEFAULTS.brand.accentColor)}\``);
    expect(byPath('pages.locales')!.default).toBe(`\`${formatValue(PAGES_DEFAULTS.locales)}\``);
  });

  it('keep prose defaults, mark required options, and carry type and TSDoc', () => {
    expect(byPath('baseUrl')).toMatchObject({ default: 'required', type: 'string' });
    expect(byPath('adapter')!.default).toMatch(/^a fresh in-memory store/);
    expect(byPath('mcp')!.type).toBe('McpOptions | false');
    expect(byPath('proxy')!.description).toMatch(/^Trust `X-Forwarded-For`/);
    expect(rows.every((r) => r.default !== '' && !r.default.includes('{@link'))).toBe(true);
  });
});
