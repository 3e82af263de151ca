import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from '#libs/common';

const LOOPBACK_NAMES = new Set(['localhost']);

function isLoopback(address: string): boolean {
  return address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

/**
 * Why a webhook URL is refused at create/update, or undefined when it is acceptable: http(s) only (https only in
 * production), no credentials in it, and its host must resolve to public addresses only (loopback only with the
 * test switch). The same guard runs again at every delivery (guardedFetch), so a DNS change later is refused then.
 */
export async function webhookUrlProblem(value: string, options: { httpsOnly: boolean; allowLoopback: boolean }): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && (url.protocol !== 'http:' || options.httpsOnly)) return options.httpsOnly ? 'url must be https' : 'url must be http or https';
  if (url.username || url.password) return 'url must not carry credentials';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      return 'url host does not resolve';
    }
    if (LOOPBACK_NAMES.has(host.toLowerCase()) && !options.allowLoopback) return 'url must resolve to a public address';
  }
  const refused = addresses.some((address) => !isPublicAddress(address) && !(options.allowLoopback && isLoopback(address)));
  return refused || addresses.length === 0 ? 'url must resolve to a public address' : undefined;
}
