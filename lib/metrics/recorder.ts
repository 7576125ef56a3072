/**
 * Turns events into metric points (./instruments.ts), and times the library's endpoints.
 *
 * @module
 */
import { createNoopMeter, metrics } from '@opentelemetry/api';
import type { MeterProvider } from '@opentelemetry/api';

import type { EventSink } from '../events/diagnostics.ts';
import type { PlatformAuthEvent } from '../events/types.ts';
import { AttributeCache, createInstruments, errorCode, METRICS } from './instruments.ts';
import type { Instruments } from './instruments.ts';

/** The instrumentation scope of every metric. */
export const METER_NAME = 'platform-auth';

const RESOURCE_ENDPOINT_LABELS = Object.freeze({ userinfo: 'userinfo', account_api: 'account_api', mcp: 'mcp', host: 'host' });

const NONE = Object.freeze({});

/**
 * The methods `http.request.method` names as sent (OpenTelemetry's HTTP conventions); any
 * other is `_OTHER`, so a client inventing methods cannot multiply the duration series.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);
const OTHER_METHOD = '_OTHER';

export class MetricsRecorder implements EventSink {
  readonly #instruments: Instruments;
  readonly #attributes = new AttributeCache();
  /**
   * false on the API's no-op meter (no SDK installed when the instance was created; its
   * meters stay no-op, README "Metrics"): nothing would be recorded, so the diagnostics leave
   * this recorder out altogether, and requests are not timed (lib/events/index.ts)
   */
  readonly recording: boolean;

  constructor(meterProvider: MeterProvider = metrics.getMeterProvider(), version?: string) {
    const meter = meterProvider.getMeter(METER_NAME, version);
    this.#instruments = createInstruments(meter);
    // the API's no-op instruments are singletons: the same object means nothing would be recorded
    this.recording = this.#instruments.requestDuration !== createNoopMeter().createHistogram(METRICS.requestDuration.name);
  }

  record(event: PlatformAuthEvent): void {
    const i = this.#instruments;
    switch (event.name) {
      case 'code.redeemed':
        i.tokensIssued.add(1, NONE);
        return;
      case 'refresh.rotated':
      case 'refresh.grace_used': {
        const outcome = event.name === 'refresh.rotated' ? 'rotated' : 'grace_used';
        i.tokensRefreshed.add(1, this.#attributes.get(`refreshed ${outcome}`, () => ({ outcome })));
        return;
      }
      case 'refresh.reuse_detected':
        this.#revoked('grant', 'refresh_reuse');
        // reuse by another client, or in a request refused for another reason, is found after
        // the provider's own refusal, which `token.failed` has counted already: one error
        // answer, counted once
        if (event.reason === 'after_grace') this.error('token', 'invalid_grant');
        return;
      case 'code.replayed':
        this.#revoked('grant', 'code_replay');
        this.error('token', 'invalid_grant');
        return;
      case 'token.revoked':
        this.#revoked(event.tokenType, 'revocation');
        return;
      case 'authorization.failed':
        this.error('authorization', event.error);
        return;
      case 'token.failed':
        this.error('token', event.error);
        return;
      case 'registration.refused':
        this.error('registration', event.error);
        return;
      case 'signin.failed':
        i.signInFailures.add(1, this.#attributes.get(`signin ${event.reason}`, () => ({ reason: event.reason })));
        return;
      case 'signin.throttled':
        i.signInThrottled.add(1, NONE);
        return;
      case 'access.refused': {
        const endpoint = RESOURCE_ENDPOINT_LABELS[event.endpoint];
        i.accessRefused.add(1, this.#attributes.get(`refused ${endpoint} ${event.reason}`, () => ({ endpoint, reason: event.reason })));
        this.error(endpoint, event.error);
        return;
      }
      case 'metadata_document.failed':
        i.metadataDocumentFailures.add(1, this.#attributes.get(`document ${event.reason}`, () => ({ reason: event.reason })));
        return;
      case 'storage.unavailable':
        i.storageUnavailable.add(1, NONE);
        return;
      case 'server.error':
        this.error(event.route, 'server_error');
        return;
      default:
    }
  }

  /** One error answer of `endpoint` (a label of ./endpoint-label.ts) with the OAuth error `code`. */
  error(endpoint: string, code: string | undefined): void {
    const error = errorCode(code);
    this.#instruments.errors.add(1, this.#attributes.get(`error ${endpoint} ${error}`, () => ({ endpoint, error })));
  }

  /** One answered request of `endpoint`, in seconds. */
  requestDone(endpoint: string, method: string, status: number, seconds: number): void {
    const label = KNOWN_METHODS.has(method) ? method : OTHER_METHOD;
    const attributes = this.#attributes.get(`${endpoint} ${label} ${status}`, () => ({
      endpoint, 'http.request.method': label, 'http.response.status_code': status,
    }));
    this.#instruments.requestDuration.record(seconds, attributes);
  }

  #revoked(tokenType: string, reason: string): void {
    this.#instruments.tokensRevoked.add(1, this.#attributes.get(`revoked ${tokenType} ${reason}`, () => ({ token_type: tokenType, reason })));
  }
}
