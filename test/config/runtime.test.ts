/**
 * The Node.js the library runs on (lib/config/runtime.ts): an older one than package.json's
 * `engines` is refused by createPlatformAuth with a message that names both versions, before
 * any option check could fail in a way that does not say why.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { createPlatformAuth } from '../../lib/index.ts';
import { MIN_NODE_VERSION, isSupportedNode, unsupportedNode } from '../../lib/config/runtime.ts';
import { createAccountStore } from '../../examples/host/seed.ts';

const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;

it('is package.json\'s engines.node', () => {
  expect(engines).toBe(`>=${MIN_NODE_VERSION}`);
});

it.each([
  ['22.15.0', true], ['v22.15.0', true], ['22.23.3', true], ['24.0.0', true], ['26.1.0', true], ['23.0.0', true],
  ['22.14.9', false], ['22.0.0', false], ['20.20.2', false], ['v20.17.0', false], ['18.20.4', false],
])('Node %s supported: %s', (version, supported) => {
  expect(isSupportedNode(version)).toBe(supported);
  expect(unsupportedNode(version) === undefined).toBe(supported);
});

it('names the version needed and the one running', () => {
  expect(unsupportedNode('20.17.0')).toBe('platform-auth needs Node.js 22.15.0 or later (package.json engines); this is Node.js v20.17.0. Use Node 22 LTS or later.');
  expect(unsupportedNode()).toBeUndefined();
});

it('createPlatformAuth refuses an older Node.js first, with a ConfigurationError', async () => {
  const real = Object.getOwnPropertyDescriptor(process.versions, 'node')!;
  Object.defineProperty(process.versions, 'node', { ...real, value: '20.17.0' });
  try {
    await expect(createPlatformAuth({ baseUrl: 'http://localhost:3000', accounts: createAccountStore() })).rejects.toMatchObject({
      name: 'ConfigurationError', message: expect.stringContaining('platform-auth needs Node.js 22.15.0 or later'),
    });
    // before anything else: not even the options object is looked at
    await expect(createPlatformAuth(undefined as never)).rejects.toThrow(/needs Node\.js 22\.15\.0/);
  } finally {
    Object.defineProperty(process.versions, 'node', real);
  }
});

describe('scripts/require-node.mjs (before npm run example, npm test and npm run bench)', () => {
  const script = fileURLToPath(new URL('../../scripts/require-node.mjs', import.meta.url));
  // the version the script sees, set before it runs: it reads process.versions.node
  const asNode = (version: string) => spawnSync(process.execPath, [
    '--import', `data:text/javascript,Object.defineProperty(process.versions, "node", { value: "${version}" })`, script,
  ], { encoding: 'utf8' });

  it('lets a supported Node through silently', () => {
    expect(asNode(MIN_NODE_VERSION)).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(asNode('24.1.0')).toMatchObject({ status: 0, stderr: '' });
  });

  it('stops an older one, saying which is needed and how to get it', () => {
    const old = asNode('20.20.2');
    expect(old.status).toBe(1);
    expect(old.stderr).toContain(`need Node.js ${MIN_NODE_VERSION} or later; npm ran Node.js v20.20.2`);
    expect(old.stderr).toContain('npm rebuild node --ignore-scripts=false');
    expect(asNode('22.14.0').status).toBe(1);
  });
});
