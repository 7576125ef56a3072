/**
 * The per-site list of member clients (lib/member-clients/site-index.ts): changes by
 * compare-and-set where the adapter has it, by write and read-back where it has not, and a
 * 503 `StorageUnavailableError` (not a plain error, which would be a 500) when the list keeps
 * changing under a change.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import { StorageUnavailableError } from '../../adapters/types.ts';
import type { Adapter, AdapterPayload } from '../../adapters/types.ts';
import { SITE_INDEX_MODEL, SiteIndex } from '../../lib/member-clients/site-index.ts';

const memory = createMemoryAdapter();
afterAll(() => memory.close());

/** The memory adapter of the model without `compareAndSet`, as a custom adapter may be. */
function withoutCompareAndSet(inner: Adapter): Adapter {
  return {
    find: (id) => inner.find(id), upsert: (id, payload, expiresIn) => inner.upsert(id, payload, expiresIn), destroy: (id) => inner.destroy(id),
    consume: (id) => inner.consume(id), revokeByGrantId: (id) => inner.revokeByGrantId(id),
    findByUid: (uid) => inner.findByUid(uid), findByUserCode: (code) => inner.findByUserCode(code),
  };
}

it.each([
  ['with compareAndSet', () => memory(SITE_INDEX_MODEL)],
  ['without compareAndSet', () => withoutCompareAndSet(memory(SITE_INDEX_MODEL))],
])('adds and removes, concurrent changes included (%s)', async (_label, store) => {
  const site = `site-${Math.random()}`;
  const index = new SiteIndex(store());
  await Promise.all(['a', 'b', 'c'].map((id) => index.add(site, id)));
  await index.add(site, 'b');
  expect((await index.ids(site)).sort()).toEqual(['a', 'b', 'c']);
  await Promise.all([index.remove(site, 'a'), index.remove(site, 'c')]);
  expect(await index.ids(site)).toEqual(['b']);
});

it('gives up with a 503 StorageUnavailableError naming the site when compareAndSet never succeeds', async () => {
  const inner = memory(SITE_INDEX_MODEL);
  let tries = 0;
  const store = Object.assign(withoutCompareAndSet(inner), {
    compareAndSet: async (_id: string, _expected: AdapterPayload | undefined, _next: AdapterPayload | undefined) => {
      tries += 1;
      return false;
    },
  });
  const err = await new SiteIndex(store).add('busy-school', 'mc_x').then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(StorageUnavailableError);
  expect(err).toMatchObject({ status: 503, error: 'temporarily_unavailable', error_detail: expect.stringContaining('site busy-school kept changing') });
  expect(tries).toBe(5);
  expect(await inner.find('busy-school')).toBeUndefined();
});
