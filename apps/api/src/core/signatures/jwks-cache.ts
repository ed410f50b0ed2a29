import { createLocalJWKSet, type JSONWebKeySet } from "jose";

/** Longest we keep a key set, whatever its `max-age` says: a revoked key stops working within this. */
export const JWKS_MAX_CACHE_SECONDS = 3600;
/** Kept this long when the JWKS response has no Cache-Control header. */
export const JWKS_DEFAULT_CACHE_SECONDS = 300;
/** An unknown `kid` refetches the set (key rotation), but at most this often per URL. */
export const JWKS_REFRESH_INTERVAL_SECONDS = 30;
/** Bound on the number of URLs held; the oldest entry goes first. */
const MAX_ENTRIES = 1000;

export type KeyResolver = ReturnType<typeof createLocalJWKSet>;

/** What a fetch of a JWKS URL answers: the parsed JSON and its Cache-Control header, if any. */
export interface FetchedJwks {
  body: unknown;
  cacheControl: string | undefined;
}

/** Thrown when the fetched document is not a JWK set jose accepts. */
export class NotAKeySet extends Error {}

interface Entry {
  keys: KeyResolver;
  expiresAt: number;
}

/**
 * How long (seconds) a JWKS response may be reused: `no-store`/`no-cache` → 0, `max-age` capped at
 * an hour, no header → 5 minutes. A malformed `max-age` counts as no header.
 */
export function jwksCacheSeconds(cacheControl: string | undefined): number {
  if (cacheControl === undefined || cacheControl.trim() === "") return JWKS_DEFAULT_CACHE_SECONDS;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache" || d.startsWith("no-cache="))) return 0;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d+)"?$/.exec(d)).find(Boolean);
  if (!maxAge) return JWKS_DEFAULT_CACHE_SECONDS;
  return Math.min(Number(maxAge[1]), JWKS_MAX_CACHE_SECONDS);
}

/**
 * Key sets of host session token issuers (A4), per URL, in process memory. Each instance of the API
 * keeps its own copy; a rotated key reaches it through the unknown-kid refetch.
 */
export class JwksCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lastFetchAt = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<KeyResolver>>();

  /** Milliseconds; a method so tests can move time without fake timers. */
  now(): number {
    return Date.now();
  }

  /** The cached key set while it is fresh, otherwise a fetched one. */
  async keys(url: string, fetchJwks: () => Promise<FetchedJwks>): Promise<KeyResolver> {
    const entry = this.entries.get(url);
    if (entry && entry.expiresAt > this.now()) return entry.keys;
    return this.load(url, fetchJwks);
  }

  /**
   * After a token named a key the set does not have: a fresh key set when the last fetch of this
   * URL is at least 30 s old, otherwise null (the caller refuses the token as it is).
   */
  async refreshed(url: string, fetchJwks: () => Promise<FetchedJwks>): Promise<KeyResolver | null> {
    const last = this.lastFetchAt.get(url);
    if (last !== undefined && this.now() - last < JWKS_REFRESH_INTERVAL_SECONDS * 1000) return null;
    return this.load(url, fetchJwks);
  }

  clear(): void {
    this.entries.clear();
    this.lastFetchAt.clear();
  }

  // Concurrent verifications against one URL share a single request.
  private load(url: string, fetchJwks: () => Promise<FetchedJwks>): Promise<KeyResolver> {
    const pending = this.inFlight.get(url);
    if (pending) return pending;
    const loading = this.fetchAndStore(url, fetchJwks).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, loading);
    return loading;
  }

  private async fetchAndStore(url: string, fetchJwks: () => Promise<FetchedJwks>): Promise<KeyResolver> {
    this.lastFetchAt.delete(url);
    this.lastFetchAt.set(url, this.now());
    const fetched = await fetchJwks();
    let keys: KeyResolver;
    try {
      keys = createLocalJWKSet(fetched.body as JSONWebKeySet);
    } catch {
      throw new NotAKeySet("not a JWK set");
    }
    const seconds = jwksCacheSeconds(fetched.cacheControl);
    this.entries.delete(url);
    if (seconds > 0) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(url, { keys, expiresAt: this.now() + seconds * 1000 });
    }
    if (this.lastFetchAt.size > MAX_ENTRIES) this.lastFetchAt.delete(this.lastFetchAt.keys().next().value!);
    return keys;
  }
}

/** The process-wide cache used by host session verification (A4). */
export const hostSessionJwksCache = new JwksCache();
