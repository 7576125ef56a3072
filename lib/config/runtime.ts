/**
 * The Node.js this library runs on. package.json's `engines` says Node ≥ 22.15 (set by its
 * dependencies: oidc-provider 9 supports Node 22 LTS and later), but npm only warns about
 * `engines` (`EBADENGINE`), and on an older Node the first sign of it was a `TypeError` from
 * deep inside (`URL.parse is not a function` on Node 20 before 20.18), or nothing at all. So
 * `createPlatformAuth` and the CLI refuse an older Node first, saying which is needed.
 *
 * @module
 */

/** The oldest Node.js supported: package.json's `engines.node` (test/config/runtime.test.ts keeps them equal). */
export const MIN_NODE_VERSION = '22.15.0';

/** Whether `version` (`22.15.0`, `v20.20.2`) is at least {@link MIN_NODE_VERSION}. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10));
  const [minMajor, minMinor, minPatch] = MIN_NODE_VERSION.split('.').map(Number) as [number, number, number];
  if (major !== minMajor) return major > minMajor;
  if (minor !== minMinor) return minor > minMinor;
  return patch >= minPatch;
}

/** Why this Node.js is refused, or `undefined` when it is supported. */
export function unsupportedNode(version = process.versions.node): string | undefined {
  if (isSupportedNode(version)) return undefined;
  return `platform-auth needs Node.js ${MIN_NODE_VERSION} or later (package.json engines); this is Node.js ${version.replace(/^v?/, 'v')}. Use Node 22 LTS or later.`;
}
