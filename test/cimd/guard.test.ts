/**
 * The guard before a document fetch, without HTTP: special-use names and literal addresses
 * refused with a clear `invalid_client`, a host resolving to a special-use address refused
 * and remembered (not resolved again), cached documents free, the budgets per caller (its
 * address read as `proxy` says) and per host answered 429 `temporarily_unavailable` with
 * `Retry-After`.
 */
import { createMemoryAdapter } from '../../adapters/memory.ts';
import type { FetchBudgetSettings } from '../../lib/cimd/budget.ts';
import { createDocumentFetch } from '../../lib/cimd/fetch.ts';
import type { DocumentFetch } from '../../lib/cimd/fetch.ts';
import { createFetchGuard } from '../../lib/cimd/guard.ts';
import { createKnownDocuments } from '../../lib/cimd/known-documents.ts';
import type { FetchRequestContext } from '../../lib/cimd/guard.ts';
import { SpecialUseAddressError } from '../../lib/cimd/pinned-request.ts';
import type { ResolvedAddress, Resolver } from '../../lib/cimd/pinned-request.ts';
import type { MetadataDocumentFetch } from '../../lib/config/options.ts';
import { createClientAddresses } from '../../lib/http/client-address.ts';

interface FakeContext extends FetchRequestContext {
  readonly headers: Record<string, string>;
}

function requestFrom(remoteAddress: string | undefined, forwardedFor?: string): FakeContext {
  const headers: Record<string, string> = {};
  return {
    req: { socket: { remoteAddress } },
    get: (field) => (field.toLowerCase() === 'x-forwarded-for' ? forwardedFor ?? '' : ''),
    set: (field, value) => { headers[field.toLowerCase()] = value; },
    headers,
  };
}

function resolverOf(answer: readonly ResolvedAddress[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(async (hostname: string) => {
    calls.push(hostname);
    return answer;
  }, { calls });
}

/** The client's address as the library reads it, one proxy in front with `proxy`. */
const addressesFor = (proxy: boolean) => createClientAddresses({ proxy, proxyHops: 1, logger: { warn() {} } });

const BUDGET: FetchBudgetSettings = { perHost: 3, perCaller: 2, windowSeconds: 60 };
const BODY_LIMIT = 5 * 1024;
const CACHE = { min: 30, max: 86400 };

interface Setup {
  documents: DocumentFetch;
  guard: ReturnType<typeof createFetchGuard>;
}

/** A guard over a memory cache; `fetch` replaces the request (so no host is resolved), or `resolve` feeds the real one. */
function setup({ budget = BUDGET, proxy = false, fetch, resolve }: {
  budget?: FetchBudgetSettings | false; proxy?: boolean; fetch?: MetadataDocumentFetch; resolve?: Resolver;
} = {}): Setup {
  const adapter = createMemoryAdapter();
  const documents = createDocumentFetch({ adapter, fetch, resolve, bodyLimit: BODY_LIMIT, cacheDuration: CACHE });
  return { documents, guard: createFetchGuard({ adapter, budget, documents, addresses: addressesFor(proxy) }) };
}

const serveAny: MetadataDocumentFetch = async (url) => new Response(JSON.stringify({ client_id: url }), { status: 200 });

/** The OAuth error the guard threw. */
async function refusal(work: Promise<void>): Promise<Record<string, unknown>> {
  try {
    await work;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('the guard let the fetch through');
}

describe('special-use hosts', () => {
  it('refuses a name or literal address at once, saying why', async () => {
    const resolve = resolverOf([{ address: '93.184.215.14', family: 4 }]);
    const { guard } = setup({ resolve });
    for (const [clientId, reason] of [
      ['https://127.1:8443/c.json', 'loopback (127.0.0.0/8)'],
      ['https://[::ffff:169.254.169.254]/c.json', 'IPv4-mapped (::ffff:0:0/96) of 169.254.169.254'],
      ['https://app.localhost/c.json', 'localhost (RFC 6761)'],
    ] as const) {
      const err = await refusal(guard(requestFrom('198.51.100.1'), clientId));
      expect(err).toMatchObject({
        error: 'invalid_client', status: 400,
        error_description: `client_id metadata document host is special-use: ${reason}; documents are fetched from public hosts only`,
      });
      expect(err.cause).toBeInstanceOf(SpecialUseAddressError);
    }
    expect(resolve.calls).toEqual([]);
  });

  it('refuses a name that resolves to one, remembers it, and does not resolve it again', async () => {
    const resolve = resolverOf([{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.7', family: 4 }]);
    const { guard, documents } = setup({ resolve });
    for (const path of ['/a.json', '/b.json', '/c.json']) {
      const err = await refusal(guard(requestFrom('198.51.100.1'), `https://internal.example${path}`));
      expect(err).toMatchObject({
        error: 'invalid_client',
        error_description: 'client_id metadata document host resolves to a special-use address: private use (10.0.0.0/8); documents are fetched from public hosts only',
      });
    }
    expect(resolve.calls).toEqual(['internal.example']);
    expect(await documents.refusedHost('INTERNAL.example.')).toBe('resolves to a special-use address: private use (10.0.0.0/8)');
  });

  it('lets a host through that resolves to public addresses only', async () => {
    const resolve = resolverOf([{ address: '93.184.215.14', family: 4 }, { address: '2606:4700:4700::1111', family: 6 }]);
    const { guard } = setup({ resolve });
    await expect(guard(requestFrom('198.51.100.1'), 'https://docs.example/c.json')).resolves.toBeUndefined();
  });

  it('resolves nothing when a replacement fetch resolves by itself', async () => {
    const { guard } = setup({ fetch: serveAny });
    await expect(guard(requestFrom('198.51.100.1'), 'https://tools.example/c.json')).resolves.toBeUndefined();
  });
});

describe('budgets', () => {
  it('refuses a caller over its budget with 429 temporarily_unavailable and Retry-After; cached documents are free', async () => {
    const { guard, documents } = setup({ fetch: serveAny });
    const caller = () => requestFrom('198.51.100.1');
    for (const path of ['/1.json', '/2.json']) {
      const url = `https://tools.example${path}`;
      await guard(caller(), url);
      await documents(url, { method: 'GET' });
    }
    // cached: no fetch, no charge, however often
    for (let i = 0; i < 5; i += 1) await guard(caller(), 'https://tools.example/1.json');
    const ctx = caller();
    const err = await refusal(guard(ctx, 'https://tools.example/3.json'));
    expect(err).toMatchObject({
      error: 'temporarily_unavailable', status: 429, statusCode: 429, expose: true, allow_redirect: false,
      error_description: expect.stringMatching(/^too many client_id metadata document fetches for this client address; try again in \d+ seconds$/),
    });
    expect(Number(ctx.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(ctx.headers['retry-after'])).toBeLessThanOrEqual(60);
    // another address has its own budget
    await expect(guard(requestFrom('198.51.100.2'), 'https://tools.example/3.json')).resolves.toBeUndefined();
  });

  it('refuses a host over its budget, whoever asks', async () => {
    const { guard } = setup({ fetch: serveAny });
    for (let i = 1; i <= 3; i += 1) await guard(requestFrom(`198.51.100.${i}`), `https://tools.example/${i}.json`);
    const err = await refusal(guard(requestFrom('198.51.100.9'), 'https://tools.example/4.json'));
    expect(err).toMatchObject({ error: 'temporarily_unavailable', status: 429 });
    expect(err.error_description).toMatch(/fetches from this host/);
    await expect(guard(requestFrom('198.51.100.9'), 'https://other.example/4.json')).resolves.toBeUndefined();
  });

  it('charges requests whose address is unknown (the client reset the connection) to one caller, not to none', async () => {
    const { guard } = setup({ fetch: serveAny });
    await guard(requestFrom(undefined), 'https://a.example/1.json');
    await guard(requestFrom(undefined), 'https://b.example/2.json');
    const err = await refusal(guard(requestFrom(undefined), 'https://c.example/3.json'));
    expect(err).toMatchObject({ error: 'temporarily_unavailable', status: 429 });
    expect(err.error_description).toMatch(/fetches for this client address/);
    // a known address is a caller of its own
    await expect(guard(requestFrom('198.51.100.1'), 'https://c.example/3.json')).resolves.toBeUndefined();
  });

  it('counts IPv6 callers by their /64', async () => {
    const { guard } = setup({ fetch: serveAny });
    await guard(requestFrom('2001:4860:1:2::a'), 'https://tools.example/1.json');
    await guard(requestFrom('2001:4860:1:2::b'), 'https://other.example/2.json');
    const err = await refusal(guard(requestFrom('2001:4860:1:2:ffff::c'), 'https://third.example/3.json'));
    expect(err).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('reads the caller from X-Forwarded-For only with proxy: true', async () => {
    const direct = setup({ fetch: serveAny });
    // without proxy, a client-written X-Forwarded-For does not make a new caller
    for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
      await direct.guard(requestFrom('198.51.100.1', forwarded), `https://h${forwarded}.example/c.json`);
    }
    expect(await refusal(direct.guard(requestFrom('198.51.100.1', '203.0.113.3'), 'https://x.example/c.json'))).toMatchObject({ status: 429 });

    const proxied = setup({ fetch: serveAny, proxy: true });
    for (const forwarded of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4']) {
      await proxied.guard(requestFrom('10.0.0.1', forwarded), `https://h${forwarded}.example/c.json`);
    }
  });

  it('the document of a client holding tokens spends only its caller\'s budget: junk on its host cannot refuse it', async () => {
    const adapter = createMemoryAdapter();
    const documents = createDocumentFetch({ adapter, fetch: serveAny, bodyLimit: BODY_LIMIT, cacheDuration: CACHE });
    const known = createKnownDocuments(adapter, 1234);
    const guard = createFetchGuard({ adapter, budget: { perHost: 1, perCaller: 3, windowSeconds: 60 }, documents, known, addresses: addressesFor(false) });
    const client = 'https://tools.example/client.json';
    await guard(requestFrom('198.51.100.1'), client);
    await documents(client, { method: 'GET' });
    // fetched and valid is not enough: only tokens issued make it known
    expect(await known.known(client)).toBe(false);
    await known.mark(client);
    expect(await known.known(client)).toBe(true);
    // junk on the same host: its budget is spent
    const junk = await refusal(guard(requestFrom('198.51.100.2'), 'https://tools.example/junk.json'));
    expect(junk.error_description).toMatch(/fetches from this host/);
    // the client's cached copy is old: fetched again, charged to its caller only
    await adapter('ClientMetadataDocument').destroy(client);
    await expect(guard(requestFrom('198.51.100.1'), client)).resolves.toBeUndefined();
    await expect(guard(requestFrom('198.51.100.1'), client)).resolves.toBeUndefined();
    const caller = await refusal(guard(requestFrom('198.51.100.1'), client));
    expect(caller.error_description).toMatch(/fetches for this client address/);
  });

  it('requests asking for one URL while it is fetched share that fetch, each with its own answer', async () => {
    let requests = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => { release = resolve; });
    const fetch: MetadataDocumentFetch = async (url) => {
      requests += 1;
      await held;
      return new Response(JSON.stringify({ client_id: url }), { status: 200, headers: { 'cache-control': 'max-age=120' } });
    };
    const documents = createDocumentFetch({ adapter: createMemoryAdapter(), fetch, bodyLimit: BODY_LIMIT, cacheDuration: CACHE });
    const url = 'https://tools.example/burst.json';
    const answers = Array.from({ length: 20 }, () => documents(url, { method: 'GET' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const bodies = await Promise.all((await Promise.all(answers)).map(async (res) => [res.status, await res.json(), res.headers.get('cache-control')]));
    expect(requests).toBe(1);
    expect(bodies).toEqual(Array.from({ length: 20 }, () => [200, { client_id: url }, 'max-age=120']));
    // and a failure is shared the same way
    const failing = createDocumentFetch({
      adapter: createMemoryAdapter(), bodyLimit: BODY_LIMIT, cacheDuration: CACHE,
      fetch: async () => { requests += 1; throw new Error('connect ECONNREFUSED'); },
    });
    requests = 0;
    const failures = await Promise.all(Array.from({ length: 5 }, () => failing(url, { method: 'GET' }).then(() => 'answered', (e: Error) => e.message)));
    expect({ requests, failures }).toEqual({ requests: 1, failures: Array.from({ length: 5 }, () => 'connect ECONNREFUSED') });
  });

  it('a host whose lookup does not answer: refused once its time is up, remembered, and never looked up twice', async () => {
    const calls: string[] = [];
    const resolve: Resolver = (hostname) => {
      calls.push(hostname);
      return new Promise(() => {});
    };
    const fetches: string[] = [];
    const { guard, documents } = setup({ resolve, budget: false });
    const url = 'https://blackhole.example/client.json';
    const started = Date.now();
    const err = await refusal(guard(requestFrom('198.51.100.1'), url));
    const took = Date.now() - started;
    expect(err).toMatchObject({ error: 'invalid_client', error_description: 'client_id metadata document fetch failed' });
    expect((err.cause as Error).name).toBe('TimeoutError');
    // one 2.5 s wait, not the guard's and then the fetch's
    expect(took).toBeGreaterThanOrEqual(2_400);
    expect(took).toBeLessThan(4_000);
    // the next request for it is answered from the cache: no lookup, no fetch
    expect(await documents.cached(url)).toBe(true);
    await refusal(documents(url, { method: 'GET' }).then(() => { fetches.push(url); }));
    expect({ calls, fetches }).toEqual({ calls: ['blackhole.example'], fetches: [] });
  });

  it('while every lookup slot is taken: 429 temporarily_unavailable with Retry-After, nothing remembered, nothing looked up', async () => {
    const calls: string[] = [];
    const resolve: Resolver = (hostname) => {
      calls.push(hostname);
      return new Promise(() => {});
    };
    const { guard, documents } = setup({ resolve, budget: false });
    // the default is one slot on libuv's default pool of 4 threads (pinned-request.ts lookupSlots)
    await refusal(guard(requestFrom('198.51.100.1'), 'https://blackhole.example/a.json'));
    const caller = requestFrom('198.51.100.2');
    const err = await refusal(guard(caller, 'https://tools.example/client.json'));
    expect(err).toMatchObject({
      error: 'temporarily_unavailable', status: 429,
      error_description: 'too many client_id metadata document fetches under way; try again in 5 seconds',
    });
    expect(caller.headers['retry-after']).toBe('5');
    expect(await documents.cached('https://tools.example/client.json')).toBe(false);
    expect(calls).toEqual(['blackhole.example']);
  });

  it('charges nothing for a fetch outside a request (a token check): only requests spend budgets', async () => {
    const { guard } = setup({ fetch: serveAny });
    for (let i = 1; i <= 6; i += 1) await guard(undefined, `https://tools.example/${i}.json`);
    // the host's budget is whole for the requests that follow
    for (let i = 7; i <= 9; i += 1) await guard(requestFrom(`198.51.100.${i}`), `https://tools.example/${i}.json`);
  });

  it('is off with fetchBudget: false', async () => {
    const { guard } = setup({ fetch: serveAny, budget: false });
    for (let i = 1; i <= 10; i += 1) await guard(requestFrom('198.51.100.1'), `https://tools.example/${i}.json`);
  });
});
