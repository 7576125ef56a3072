/**
 * The demo's account store (examples/host/seed.ts), which hosts copy: a sign-in costs one
 * password hash whether or not the email has an account, so its timing does not tell which
 * accounts exist, also once the hash is a slow one (scrypt, argon2) as its comment asks.
 */
import { createHash } from 'node:crypto';

import { createAccountStore } from '../../examples/host/seed.ts';

it('hashes the password exactly once per sign-in, for a known email and an unknown one', async () => {
  let hashes = 0;
  const store = createAccountStore({ digest: (password) => { hashes += 1; return createHash('sha256').update(password).digest(); } });
  const hashesOf = async (email: string, password: string) => {
    hashes = 0;
    const account = await store.authenticate(email, password);
    return { hashes, account: account?.id };
  };
  expect({
    known: await hashesOf('student@example.com', 'student'),
    wrongPassword: await hashesOf('Student@Example.com ', 'nope'),
    unknown: await hashesOf('nobody@example.com', 'student'),
  }).toEqual({
    known: { hashes: 1, account: 'acc-student' },
    wrongPassword: { hashes: 1, account: undefined },
    unknown: { hashes: 1, account: undefined },
  });
});
