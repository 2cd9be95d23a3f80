import { type LookupAddress, lookup } from 'node:dns';
import { lookup as lookupAsync } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { errors } from '../../http/errors.ts';

/**
 * Whether an address is on the public internet. Anything else — private, loopback, link-local,
 * unique-local, carrier-grade NAT, multicast, reserved — could reach the service's own network
 * (server-side request forgery). An IPv4 address mapped into IPv6 is judged as the IPv4 it is.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.isIPv4MappedAddress()) parsed = ipv6.toIPv4Address();
    // The deprecated IPv4-compatible form (::127.0.0.1) is "unicast" to ipaddr.js; nothing public uses it.
    else if (ipv6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return parsed.range() === 'unicast';
}

export class PrivateAddressError extends Error {
  override name = 'PrivateAddressError';
}

/**
 * A DNS lookup for the HTTP client that refuses non-public addresses. The check happens on the
 * address the connection is about to use, so a name that resolved to a public address when the
 * webhook was saved and to a private one now (DNS rebinding) is still refused.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) {
      return callback(
        new PrivateAddressError(`${hostname} resolves to a non-public address (${refused.address})`),
        '',
        0,
      );
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    const [first] = addresses;
    if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
    callback(null, first.address, first.family);
  });
};

const isDnsFailure = (error: unknown) => typeof (error as { code?: unknown }).code === 'string';

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Throws unless the URL's host is a public address or resolves only to public addresses. */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = hostOf(url);
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw new PrivateAddressError(`${host} is not a public address`);
    return;
  }
  const addresses = await lookupAsync(host, { all: true });
  const refused = addresses.find((entry) => !isPublicAddress(entry.address));
  if (refused) throw new PrivateAddressError(`${host} resolves to a non-public address (${refused.address})`);
}

/**
 * The check of a destination URL when it is saved: http(s), no credentials in it, and — unless
 * private addresses are allowed — https on a host that resolves to public addresses only.
 * `path` names the body field in the 400.
 */
export async function assertDestination(raw: string, options: { allowPrivate: boolean; path: string }) {
  const refuse = (message: string) => errors.validation([{ path: options.path, message }]);
  const url = new URL(raw);
  if (url.username || url.password) throw refuse('must not contain a user name or password');
  if (options.allowPrivate) return url;
  if (url.protocol !== 'https:') throw refuse('must be an https URL');
  try {
    await assertPublicHost(url);
  } catch (error) {
    // One answer for both, naming no address: the check must not tell which internal names exist.
    if (!(error instanceof PrivateAddressError) && !isDnsFailure(error)) throw error;
    throw refuse(
      'must be a host that resolves to public addresses only (private, loopback and link-local ones are refused unless WEBHOOKS_ALLOW_PRIVATE=true)',
    );
  }
  return url;
}
