import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { outboundCalls, outboundSeconds, secondsSince } from "../metrics/metrics";
import { inSpan, SpanKind } from "../tracing/tracing";

/** Why an outbound request did not produce a response. */
export type OutboundFailure =
  "invalid_url" | "blocked_address" | "timeout" | "too_large" | "network" | "too_many_redirects";

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

export interface OutboundPolicy {
  /** `host` or `host:port` entries that may be reached over http and on private addresses. */
  allowHosts: string[];
  /**
   * Plain http to public addresses too. Only for answers that are signed themselves and carry no
   * secret on the way out (RFC 3161 time stamps, OCSP responses, CRLs: their responders are
   * usually http by design); private addresses stay refused unless allow-listed.
   */
  allowPlainHttp?: boolean;
}

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxBytes: number;
  /** Redirects to follow (each hop checked like the first); 0 returns the 3xx as it is. */
  maxRedirects?: number;
  /** What the call is for, as metrics count it (`tsa`, `ocsp`, `webhook` …); a name of the code's, never a URL. */
  purpose?: OutboundPurpose;
}

export type OutboundPurpose = "tsa" | "ocsp" | "crl" | "webhook" | "fhir" | "oauth_token" | "oidc" | "blob" | "verify";

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The address the socket actually connected to. */
  remoteAddress: string | undefined;
  url: string;
}

// Everything that is not the public internet: private, loopback, link-local, CGNAT, multicast, reserved.
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d).
  ["::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  // Site-local: deprecated, but still routed inside some networks.
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  // NAT64 (well-known and local-use prefixes) and 6to4: each embeds an IPv4 address a gateway
  // translates to, which may be a private one.
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["2002::", 16],
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

/** True for addresses outbound requests must not reach unless their host is allow-listed. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, "ipv4");
  // The same IPv4-mapped address in hexadecimal (`new URL` writes `[::ffff:127.0.0.1]` this way).
  const mappedHex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (mappedHex) {
    const [high, low] = [parseInt(mappedHex[1]!, 16), parseInt(mappedHex[2]!, 16)];
    return blocked.check(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`, "ipv4");
  }
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

function isAllowListed(url: URL, policy: OutboundPolicy): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return policy.allowHosts.some((entry) => {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry.toLowerCase());
    if (!match) return false;
    const entryHost = match[1]!.replace(/^\[|\]$/g, "");
    return entryHost === host && (!match[2] || match[2] === port);
  });
}

/** Checks scheme and allow-list; throws `invalid_url` or `blocked_address`. */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): { url: URL; allowListed: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("invalid_url", "not a valid URL");
  }
  if (url.username || url.password) throw new OutboundError("invalid_url", "URLs with credentials are not allowed");
  const allowListed = isAllowListed(url, policy);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && (allowListed || policy.allowPlainHttp))) {
    throw new OutboundError("invalid_url", "only https URLs are allowed");
  }
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowListed && isIP(literal) && isBlockedAddress(literal)) {
    throw new OutboundError("blocked_address", "the URL points at a private or loopback address");
  }
  return { url, allowListed };
}

/**
 * A DNS lookup that refuses blocked addresses: the socket connects to exactly the address
 * checked here, so a hostname cannot resolve to something else between check and connect.
 */
function guardedLookup(allowListed: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const usable = allowListed ? addresses : addresses.filter((a) => !isBlockedAddress(a.address));
      if (usable.length === 0) {
        return callback(
          new OutboundError("blocked_address", `${hostname} resolves to a private or loopback address`),
          "",
          0,
        );
      }
      // dns.lookup's callback takes an address list with `all`, one address without; its type names only one.
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

function once(url: URL, allowListed: boolean, init: GuardedRequest): Promise<GuardedResponse> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: init.method ?? "GET",
        headers: { "user-agent": "ClinSign/1.0", ...init.headers },
        lookup: guardedLookup(allowListed),
        timeout: init.timeoutMs,
      },
      (res) => {
        const remoteAddress = res.socket?.remoteAddress;
        const declared = Number(res.headers["content-length"] ?? 0);
        if (declared > init.maxBytes) {
          req.destroy(new OutboundError("too_large", `response exceeds ${init.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > init.maxBytes)
            req.destroy(new OutboundError("too_large", `response exceeds ${init.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            remoteAddress,
            url: url.toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new OutboundError("timeout", `no complete answer within ${init.timeoutMs} ms`)),
      init.timeoutMs,
    );
    req.on("timeout", () => req.destroy(new OutboundError("timeout", `no answer within ${init.timeoutMs} ms`)));
    req.on("error", (error) => {
      clearTimeout(deadline);
      reject(error instanceof OutboundError ? error : new OutboundError("network", error.message));
    });
    req.on("close", () => clearTimeout(deadline));
    req.end(init.body);
  });
}

/**
 * The only way the service calls a URL a customer gave it (blob URLs, JWKS, introspection,
 * webhooks): https or an allow-listed host, never a private address unless allow-listed,
 * bounded in size and time, redirects re-checked hop by hop.
 */
export async function guardedFetch(
  raw: string,
  policy: OutboundPolicy,
  init: GuardedRequest,
): Promise<GuardedResponse> {
  const purpose = init.purpose ?? "other";
  const started = process.hrtime.bigint();
  // The span names the purpose, never the URL: a customer's URL may carry a secret or an id.
  return inSpan(
    `outbound ${purpose}`,
    { "clinsign.outbound.purpose": purpose },
    async (span) => {
      try {
        const response = await followRedirects(raw, policy, init);
        outboundCalls.inc({ purpose, outcome: `${Math.floor(response.status / 100)}xx` });
        span.setAttribute("http.response.status_code", response.status);
        return response;
      } catch (error) {
        const outcome = error instanceof OutboundError ? error.reason : "error";
        outboundCalls.inc({ purpose, outcome });
        span.setAttribute("clinsign.outbound.failure", outcome);
        throw error;
      } finally {
        outboundSeconds.observe({ purpose }, secondsSince(started));
      }
    },
    SpanKind.CLIENT,
  );
}

async function followRedirects(raw: string, policy: OutboundPolicy, init: GuardedRequest): Promise<GuardedResponse> {
  let target = raw;
  for (let hop = 0; ; hop++) {
    const { url, allowListed } = checkOutboundUrl(target, policy);
    const response = await once(url, allowListed, init);
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || !location || hop >= (init.maxRedirects ?? 0)) {
      if (response.status >= 300 && response.status < 400 && location && (init.maxRedirects ?? 0) > 0) {
        throw new OutboundError("too_many_redirects", "too many redirects");
      }
      return response;
    }
    target = new URL(location, url).toString();
  }
}
