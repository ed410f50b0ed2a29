/**
 * `/verify`'s lookups across organizations: whoever holds a sealed PDF may learn which request
 * sealed it (by the seal's message digest, which only the file carries) and whether a certificate
 * is one this service seals with, and every anonymous check is counted per address first. None
 * of these names an organization's data beyond the ids the file's own metadata JSON carries;
 * the request itself is then read in its organization's scope.
 */
import { and, eq, organizationSeals, signatureRequests } from "@clinsign/db";
import type { RequestMeta, Services } from "../context";
import { addressKey, claimConcurrent, consumeRateLimit } from "../rate-limit";
import type { SignerGrant } from "./signing";

/** Checks one address may run per 10 minutes: each costs a PDF worker. */
export const VERIFY_PER_ADDRESS = 30;

/**
 * Admits one `/verify` check for the caller's address (IPv6: its /64) before its body is read:
 * counted in the window, and one of the address's concurrent checks (VERIFY_CONCURRENT_PER_ADDRESS)
 * held until the answer is sent (the returned release); 429 beyond either.
 */
export async function consumeVerifyAttempt(services: Services, request: RequestMeta): Promise<() => void> {
  const address = addressKey(request.ip);
  const release = claimConcurrent(`verify:${address}`, services.config.verify.concurrentPerAddress);
  try {
    await consumeRateLimit(services.db, { key: `verify:ip:${address}`, limit: VERIFY_PER_ADDRESS, windowSeconds: 600 });
  } catch (error) {
    release();
    throw error;
  }
  return release;
}

/** The completed request whose seal signed content with this SHA-256 (hex), or null. */
export async function requestOfSealedContent(services: Services, sha256: string): Promise<SignerGrant | null> {
  const [row] = await services.db
    .select({ organizationId: signatureRequests.organizationId, id: signatureRequests.id })
    .from(signatureRequests)
    .where(and(eq(signatureRequests.sealedContentSha256, sha256), eq(signatureRequests.status, "completed")))
    .limit(1);
  return row ? { organizationId: row.organizationId, signatureRequestId: row.id } : null;
}

/** Whether some organization's uploaded seal has this certificate fingerprint. */
export async function isOrganizationSealCertificate(services: Services, fingerprint: string): Promise<boolean> {
  const [row] = await services.db
    .select({ fingerprint: organizationSeals.fingerprint })
    .from(organizationSeals)
    .where(eq(organizationSeals.fingerprint, fingerprint))
    .limit(1);
  return !!row;
}
