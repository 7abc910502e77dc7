// The one way the server makes requests of its own (upload_by_url, webhooks): http(s) only, the
// address checked after DNS resolution and used as resolved (no second lookup to rebind), every
// redirect hop checked the same way, with time and size limits. Loopback, private, link-local (cloud
// metadata), multicast, unspecified and other non-public ranges are refused unless
// SHELF_AUDIT_ALLOW_PRIVATE_URLS allows them, e.g. for a webhook receiver on the same laptop
// (docs/api.md, "Outgoing requests"). Issue 22, finding 8.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, fetch, type Response } from 'undici';
import { allDurable } from '../storage/wal-sync.js';

/** Any refusal or failure: callers answer one text for all, so nothing tells open from closed ports. */
export class OutgoingRequestFailed extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface OutgoingOptions {
  allowPrivate: boolean;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxRedirects?: number;
}

/** Whether `address` (IPv4 or IPv6, IPv4-mapped included) is an ordinary public unicast address. */
export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
}

function checkedAddress(address: string, allowPrivate: boolean): void {
  if (!allowPrivate && !isPublicAddress(address)) throw new OutgoingRequestFailed(`address ${address} is not public`);
}

function agentFor(allowPrivate: boolean): Agent {
  return new Agent({
    connect: {
      // Resolved once, checked, and the checked address is the one connected to.
      lookup(hostname, options, callback) {
        dns.lookup(hostname, { all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const usable = addresses.filter((a) => allowPrivate || isPublicAddress(a.address));
          if (usable.length === 0) return callback(new OutgoingRequestFailed(`${hostname} resolves to no public address`), '', 0);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
          callback(null, usable[0].address, usable[0].family);
        });
      },
    },
  });
}

const agents = { public: agentFor(false), private: agentFor(true) };

/** Checks what can be checked before connecting: the scheme, and a host that is an IP literal. */
function checkUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutgoingRequestFailed(`scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // IP literals (127.1 and 2130706433 are normalised to 127.0.0.1 by the URL parser) skip DNS.
  if (net.isIP(host)) checkedAddress(host, allowPrivate);
}

/**
 * Sends one request through the guard, following up to `maxRedirects` redirects (each hop checked).
 * The caller reads and bounds the body. Throws OutgoingRequestFailed on any refusal or failure.
 */
export async function guardedFetch(target: string | URL, o: OutgoingOptions): Promise<Response> {
  // A webhook carries what the database shows: only once it is on disk (storage/wal-sync.ts).
  await allDurable();
  let url = new URL(target);
  const signal = AbortSignal.timeout(o.timeoutMs);
  const dispatcher = o.allowPrivate ? agents.private : agents.public;
  for (let hop = 0; ; hop++) {
    checkUrl(url, o.allowPrivate);
    let response: Response;
    try {
      response = await fetch(url, { method: o.method ?? 'GET', headers: o.headers, body: o.body, redirect: 'manual', signal, dispatcher });
    } catch (error) {
      const cause = (error as Error).cause;
      throw new OutgoingRequestFailed(cause instanceof OutgoingRequestFailed ? cause.reason : (error as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed');
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location && (o.maxRedirects ?? 0) > hop) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    return response;
  }
}
