// Loaded by jest before every test file (jest.config.js `setupFiles`).
process.env.NODE_ENV = 'test';
