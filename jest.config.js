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
  // each test file's ES module graph stays in its worker (--experimental-vm-modules): by the
  // end of the suite a worker held 2.4-3.6 GB and took 0.7-0.9 s to exit, past jest-worker's
  // 500 ms, hence "A worker process has failed to exit gracefully" with no handle left open.
  // A worker over 1 GB is replaced between files (the suite also ran ~20% faster so).
  // A worker also exits only once its event loop is empty (jest-worker's child removes its
  // message listener and waits), so a ref'd timer a test leaves running counts too: keep
  // timers that may outlive their test unref'd (test/mcp/operator.test.ts' slow tool)
  workerIdleMemoryLimit: '1GB',
};
