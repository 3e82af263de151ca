import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { outgoingCall } from '#libs/tracing';

/**
 * The one guard of every outbound fetch to a URL someone else chose (client ID metadata documents,
 * later webhooks): the host name is resolved first, every address it resolves to must be public,
 * and the connection goes to the vetted address (the socket's own lookup is this check, so a DNS
 * answer changed in between cannot slip a private address past it). Nothing is connected to
 * loopback, private, link-local, unique-local, CGNAT, multicast, unspecified, reserved or
 * documentation space, nor to an IPv6 address that embeds an IPv4 one (mapped, compatible, NAT64,
 * 6to4, Teredo).
 */

/** IPv4 space that is not the public internet (IANA special-purpose registry, plus multicast and reserved). */
const NOT_PUBLIC_IPV4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (shared address space)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** Public IPv6 is global unicast (2000::/3) outside these; everything else (::, ::1, ::ffff:0:0/96, ::/96, 64:ff9b::/96, fc00::/7, fe80::/10, ff00::/8...) is outside 2000::/3 already. */
const NOT_PUBLIC_IPV6_IN_GLOBAL: ReadonlyArray<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments, Teredo (2001::/32) included
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['3fff::', 20], // documentation
];

const notPublicV4 = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_IPV4) notPublicV4.addSubnet(network, prefix, 'ipv4');
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
const notPublicV6 = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_IPV6_IN_GLOBAL) notPublicV6.addSubnet(network, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Whether an IP address (no brackets) is on the public internet. A string that is not an address is not. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublicV4.check(address, 'ipv4');
  if (family === 6) return globalUnicastV6.check(address, 'ipv6') && !notPublicV6.check(address, 'ipv6');
  return false;
}

/** An outbound fetch refused before connecting: the host resolves to an address outside public space. */
export class OutboundAddressRefusedError extends Error {
  readonly code = 'OUTBOUND_ADDRESS_REFUSED';
  constructor(readonly host: string) {
    super(`${host} resolves to an address outside public space; not connected`);
    this.name = 'OutboundAddressRefusedError';
  }
}

export interface OutboundGuardOptions {
  /** Test servers on 127.0.0.1 / ::1: only a test switch that production refuses may set this. */
  allowLoopback?: boolean;
  /**
   * Keep-alive agents to reuse connections (default: none, a connection per request). A pooled connection goes to
   * an address vetted when it was opened, so an agent must only ever be used with one and the same `allowLoopback`:
   * its owner keeps it for itself (the webhook engine has its own pair).
   */
  agents?: { http: HttpAgent; https: HttpsAgent };
}

function allowed(address: string, options: OutboundGuardOptions): boolean {
  if (isPublicAddress(address)) return true;
  const family = isIP(address);
  return options.allowLoopback === true && family !== 0 && loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of a URL as an address or a name (brackets of an IPv6 literal removed). */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The socket's lookup: resolves every address of the name and refuses them all when one is not
 * allowed (a name with one private answer among public ones is refused, not raced).
 */
function guardedLookup(options: OutboundGuardOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (addresses.length === 0 || addresses.some((entry) => !allowed(entry.address, options))) {
        return callback(new OutboundAddressRefusedError(hostname), '', 0);
      }
      if (lookupOptions.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface OutboundRequestInit {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

function toHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * fetch() for a URL someone else chose: http or https only, the address vetted before connecting
 * (an address literal at once, a name by the socket's lookup), no redirect followed (the answer
 * is handed back as it is), no connection pooling unless the caller passes its own agents. Rejects with
 * OutboundAddressRefusedError.
 */
export async function guardedFetch(input: string | URL, init: OutboundRequestInit = {}, options: OutboundGuardOptions = {}): Promise<Response> {
  const url = new URL(input);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`outbound fetch refuses the ${url.protocol} scheme`);
  const host = hostOf(url);
  if (isIP(host) !== 0 && !allowed(host, options)) throw new OutboundAddressRefusedError(host);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => (headers[name] = value));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const method = init.method ?? 'GET';
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return outgoingCall(method, host, port, headers, () => new Promise<Response>((resolve, reject) => {
    const agent = (url.protocol === 'https:' ? options.agents?.https : options.agents?.http) ?? false;
    const request = send(url, { method, headers, signal: init.signal, lookup: guardedLookup(options), agent }, (message) => {
      const status = message.statusCode ?? 502;
      const body = NULL_BODY_STATUSES.has(status) ? null : (Readable.toWeb(message) as ReadableStream<Uint8Array>);
      if (body === null) message.resume();
      try {
        resolve(new Response(body, { status, statusText: message.statusMessage, headers: toHeaders(message) }));
      } catch (error) {
        message.destroy();
        reject(error as Error);
      }
    });
    request.on('error', reject);
    request.end(init.body);
  }));
}
