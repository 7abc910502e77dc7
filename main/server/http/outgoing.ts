// The one way the server makes requests of its own (upload_by_url, webhooks): http(s) only, the
// address checked after DNS resolution and used as resolved (no second lookup to rebind), every
// redirect hop checked the same way, with time and size limits. What a request may reach is its
// caller's `reach`: public addresses only; public and loopback (a laptop's webhooks, for a local
// integration's receiver on the same laptop); or any address (SHELF_AUDIT_ALLOW_PRIVATE_URLS). Private,
// link-local (cloud metadata), multicast, unspecified and other non-public ranges are refused unless
// reach is 'any' (docs/api.md, "Outgoing requests").
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

/** Which addresses a request may reach: public only, public and loopback, or any. */
export type Reach = 'public' | 'loopback' | 'any';

export interface OutgoingOptions {
  reach: Reach;
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

function isLoopbackAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

function reachable(address: string, reach: Reach): boolean {
  return reach === 'any' || isPublicAddress(address) || (reach === 'loopback' && isLoopbackAddress(address));
}

function checkedAddress(address: string, reach: Reach): void {
  if (!reachable(address, reach)) throw new OutgoingRequestFailed(`address ${address} is not ${reach === 'loopback' ? 'public or loopback' : 'public'}`);
}

function agentFor(reach: Reach): Agent {
  return new Agent({
    connect: {
      // Resolved once, checked, and the checked address is the one connected to.
      lookup(hostname, options, callback) {
        dns.lookup(hostname, { all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const usable = addresses.filter((a) => reachable(a.address, reach));
          if (usable.length === 0) return callback(new OutgoingRequestFailed(`${hostname} resolves to no ${reach === 'loopback' ? 'public or loopback' : 'public'} address`), '', 0);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
          callback(null, usable[0].address, usable[0].family);
        });
      },
    },
  });
}

const agents: Record<Reach, Agent> = { public: agentFor('public'), loopback: agentFor('loopback'), any: agentFor('any') };

/** Checks what can be checked before connecting: the scheme, and a host that is an IP literal. */
function checkUrl(url: URL, reach: Reach): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutgoingRequestFailed(`scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // IP literals (127.1 and 2130706433 are normalised to 127.0.0.1 by the URL parser) skip DNS.
  if (net.isIP(host)) checkedAddress(host, reach);
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
  const dispatcher = agents[o.reach];
  for (let hop = 0; ; hop++) {
    checkUrl(url, o.reach);
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
