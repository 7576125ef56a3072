/**
 * Why a client ID metadata document could not be used, read from the error oidc-provider
 * answered with (`invalid_client` "client_id metadata document fetch failed", with the fetch's
 * error as its cause, `invalid_client_metadata` for a document it refused, or the fetch
 * budget's 429 `temporarily_unavailable`, lib/cimd/guard.ts).
 *
 * A fetch error that carries `reason` (one of {@link MetadataDocumentFailure}) is taken at its
 * word: lib/cimd/fetch.ts can say precisely what it refused. Otherwise the reason is read from
 * the error's shape: `ENOTFOUND` is DNS, a timeout or abort is a timeout, "special-use IP
 * address" is oidc-provider's SSRF guard, "too large" is the size limit, a status is a status.
 * Only fixed words go into the description, never the document or a header.
 *
 * @module
 */
import type { MetadataDocumentFailure } from './types.ts';

interface Failure {
  readonly reason: MetadataDocumentFailure;
  readonly status?: number;
  readonly description: string;
}

const REASONS: ReadonlySet<string> = new Set<MetadataDocumentFailure>([
  'host_not_allowed', 'dns', 'refused_address', 'timeout', 'size', 'status', 'invalid_content', 'network', 'over_budget',
]);

const DESCRIPTIONS: Readonly<Record<MetadataDocumentFailure, string>> = {
  host_not_allowed: 'documents from this host are not accepted',
  dns: 'the host name does not resolve',
  refused_address: 'the host resolves to a private or special-use address',
  timeout: 'the fetch timed out',
  size: 'the document is too large',
  status: 'the document URL did not answer 200',
  invalid_content: 'the document is not valid client metadata',
  network: 'the fetch failed',
  over_budget: 'too many document fetches lately; not fetched now',
};

interface ErrorLike {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly reason?: unknown;
  readonly cause?: unknown;
  readonly error?: unknown;
  readonly error_description?: unknown;
  readonly error_detail?: unknown;
  readonly description?: unknown;
}

function* chain(error: unknown): Generator<ErrorLike> {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 6; depth += 1) {
    yield e as ErrorLike;
    e = (e as ErrorLike).cause;
  }
}

const fixed = (reason: MetadataDocumentFailure, status?: number): Failure => ({
  reason,
  ...(status === undefined ? {} : { status }),
  description: status === undefined ? DESCRIPTIONS[reason] : `the document URL answered HTTP ${status}`,
});

/**
 * Classifies the cause chain of a failed fetch; lib/cimd/fetch.ts keeps the reason with a
 * failure it caches, so a failure answered from the cache is reported as the fetch's was.
 */
export function fetchFailureOf(error: unknown): Failure {
  for (const e of chain(error)) {
    if (typeof e.reason === 'string' && REASONS.has(e.reason)) {
      // a document refused for its content, answered from the cache (lib/cimd/fetch.ts): the words it was refused with
      if (e.reason === 'invalid_content' && typeof e.description === 'string') return { reason: 'invalid_content', description: e.description };
      return fixed(e.reason as MetadataDocumentFailure);
    }
    const message = typeof e.message === 'string' ? e.message : '';
    const code = typeof e.code === 'string' ? e.code : '';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || /getaddrinfo/.test(message)) return fixed('dns');
    if (/special-use IP|private address|refused address/i.test(message)) return fixed('refused_address');
    if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || /timed? ?out/i.test(message)) return fixed('timeout');
    if (/too large/i.test(message)) return fixed('size');
    const status = /(?:unexpected response status|cached failure: status) (\d{3})/.exec(message);
    if (status) return fixed('status', Number(status[1]));
    if (e.name === 'SyntaxError') return fixed('invalid_content');
  }
  return fixed('network');
}

/** The failures of a fetch that the same fetch may get past later (the document itself is not refused). */
const PASSING: ReadonlySet<MetadataDocumentFailure> = new Set(['dns', 'timeout', 'network']);

/**
 * Whether `error` is a metadata-document fetch that may work if tried later: the host did not
 * answer, or answered 5xx, 429 or 408. A document that is gone (404, 410), refused for its
 * content or its host, is not.
 */
export function documentMayWorkLater(error: unknown): boolean {
  const failure = metadataDocumentFailure(error);
  if (!failure) return false;
  if (failure.reason === 'status') return failure.status !== undefined && (failure.status >= 500 || failure.status === 429 || failure.status === 408);
  return PASSING.has(failure.reason);
}

/** The failure of a metadata document, or `undefined` when `error` is about something else. */
export function metadataDocumentFailure(error: unknown): Failure | undefined {
  const e = error as ErrorLike | undefined;
  if (!e || typeof e !== 'object') return undefined;
  const description = typeof e.error_description === 'string' ? e.error_description : '';
  // lib/cimd/guard.ts `overBudget`: 429, "too many client_id metadata document fetches …"
  if (e.error === 'temporarily_unavailable' && description.startsWith('too many client_id metadata document fetches')) {
    return { reason: 'over_budget', description };
  }
  if (e.error === 'invalid_client_metadata' && description.startsWith('client_id metadata document')) {
    return { reason: 'invalid_content', description };
  }
  if (e.error !== 'invalid_client' || !description.startsWith('client_id metadata document')) return undefined;
  if (/not allowed/.test(description)) return fixed('host_not_allowed');
  // lib/cimd/guard.ts: "client_id metadata document host is special-use …" / "resolves to a special-use address …"
  if (/special-use|private address/i.test(description)) return fixed('refused_address');
  const detail = typeof e.error_detail === 'string' ? e.error_detail : '';
  const status = /unexpected response status (\d{3})/.exec(detail);
  if (status) return fixed('status', Number(status[1]));
  return fetchFailureOf(e.cause);
}
