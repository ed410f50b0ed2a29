import { and, inArray, lte, signatureRequests, type SignatureRequestStatus } from "@clinsign/db";
import { nowOf, type Services } from "../context";

/**
 * The expiry sweep's one read across organizations (a system job, like the queue): open requests
 * past their expiry, at most `batchSize`. Each is then expired in its own organization's scope
 * (core/signatures/requests.ts, expireDueRequests).
 */
export async function signatureRequestsDueForExpiry(
  services: Services,
  openStatuses: SignatureRequestStatus[],
  batchSize: number,
): Promise<{ id: string; organizationId: string }[]> {
  return services.db
    .select({ id: signatureRequests.id, organizationId: signatureRequests.organizationId })
    .from(signatureRequests)
    .where(and(inArray(signatureRequests.status, openStatuses), lte(signatureRequests.expiresAt, nowOf(services))))
    .limit(batchSize);
}
