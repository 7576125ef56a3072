// The one place the test runner is set up. oidc-provider 9 is ESM-only, so jest runs real
// ES modules (node --experimental-vm-modules, see package.json "test") and ts-jest's ESM
// mode compiles TypeScript per file without type-checking (`npm run typecheck` does that).
// ts-jest rather than a native transformer: this registry serves no prebuilt binaries for
// other platforms, which `npm ci` would need in the lockfile.
// `npm run test:browser` (TEST_SUITE=browser) runs the real-browser tests, which need
// Chromium; `npm test` runs everything else and needs nothing beyond `npm install`.
const browser = process.env.TEST_SUITE === 'browser';

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', {
      useESM: true,
      tsconfig: 'tsconfig.test.json',
    }],
  },
  testMatch: browser ? ['<rootDir>/test/browser/**/*.test.ts'] : ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: browser ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/test/browser/'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  testTimeout: 30_000,
  maxWorkers: 2,
};
