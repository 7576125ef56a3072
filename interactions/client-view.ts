/**
 * The client as the pages show it: its name, where it returns to, and who vouches for it.
 * A client that registered itself (open registration) or describes itself in a metadata
 * document nobody reviewed is *unverified*, and the page says where it comes from; a member
 * client is the school's own, a vendor platform or a configured client is the service's.
 *
 * @module
 */
import type Provider from 'oidc-provider';

import { isLoopbackHost } from '../lib/constants.ts';
import { html } from '../lib/pages/html.ts';
import type { Translator } from '../lib/pages/messages/index.ts';
import type { ClientTrust, ClientTrustKind, ClientView, SiteView } from '../lib/pages/templates.ts';
import { clientAudience } from '../lib/policies/audience.ts';

export type OidcClient = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

export interface TrustSources {
  /** clients of `options.clients` */
  readonly staticClients: ReadonlySet<string>;
  /** Variant A vendor platforms */
  readonly vendors: ReadonlySet<string>;
  /** metadata-document clients a school operator reviewed */
  isReviewed(clientId: string): Promise<boolean>;
}

export function redirectHost(redirectUri: string): string {
  const url = URL.parse(redirectUri);
  if (!url) return redirectUri;
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : url.protocol.slice(0, -1);
}

export function isLoopbackOnly(client: OidcClient): boolean {
  const uris = client.redirectUris ?? [];
  return uris.length > 0 && uris.every((u) => isLoopbackHost(URL.parse(u)?.hostname ?? ''));
}

/** The host that published the client's metadata document, for document clients. */
function documentHostOf(client: OidcClient): string | undefined {
  return (client as { clientIdMetadataDocument?: boolean }).clientIdMetadataDocument === true
    ? URL.parse(client.clientId)?.host
    : undefined;
}

export async function trustKind(client: OidcClient, sources: TrustSources): Promise<ClientTrustKind> {
  if (clientAudience(client) === 'member') return 'member';
  if (documentHostOf(client)) return (await sources.isReviewed(client.clientId)) ? 'reviewed' : 'unverified';
  if (sources.vendors.has(client.clientId)) return 'vendor';
  if (sources.staticClients.has(client.clientId)) return 'service';
  // registered through open registration (Variant B): nobody checked what it says
  return 'unverified';
}

function describeTrust(kind: ClientTrustKind, hosts: { document?: string; redirect: string }, site: SiteView | undefined, { t, text }: Translator): ClientTrust {
  const host = (value: string) => html`<span class="host">${value}</span>`;
  const siteName = site?.name ?? '';
  switch (kind) {
    case 'member':
      return { kind, verified: true, label: text('trust.member', { site: siteName }), detail: t('trust.memberDetail', { site: siteName }) };
    case 'vendor':
      return { kind, verified: true, label: text('trust.vendor'), detail: t('trust.vendorDetail') };
    case 'service':
      return { kind, verified: true, label: text('trust.service'), detail: t('trust.serviceDetail') };
    case 'reviewed':
      return { kind, verified: true, label: text('trust.reviewed'), detail: t('trust.reviewedDetail', { host: host(hosts.document ?? '') }) };
    case 'unverified':
      return {
        kind,
        verified: false,
        label: text('trust.unverified'),
        detail: hosts.document
          ? t('trust.documentDetail', { host: host(hosts.document) })
          : t('trust.registeredDetail', { host: host(hosts.redirect) }),
      };
  }
}

/** The client for a page in `translator`'s language; `site` is a member client's school. */
export async function clientView(
  client: OidcClient, redirectUri: string, site: SiteView | undefined, sources: TrustSources, translator: Translator,
): Promise<ClientView> {
  const documentHost = documentHostOf(client);
  const hosts = { redirect: redirectHost(redirectUri), ...(documentHost ? { document: documentHost } : {}) };
  const kind = await trustKind(client, sources);
  return {
    id: client.clientId,
    name: client.clientName ?? client.clientId,
    redirectHost: hosts.redirect,
    ...(documentHost ? { documentHost } : {}),
    trust: describeTrust(kind, hosts, site, translator),
  };
}
