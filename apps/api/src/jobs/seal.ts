import { systemContext } from "../core/context";
import { markSealGaveUp, sealContext, sealSignatureRequest } from "../core/signatures/seal";

export { SEAL_JOB } from "../core/signatures/seal";
import { jittered, type JobHandler } from "./runner";

/** Backoff between sealing attempts: 30 s, 2 min, 10 min, then every 30 min. */
const DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000];

/**
 * `signature.seal`: finishes a signed request whose sealing failed or was interrupted. A request
 * that is already completed is a no-op, so the job is safe after a successful first attempt.
 */
export const sealJobHandler: JobHandler = {
  async run(job, services) {
    const { organizationId, signatureId } = job.payload as { organizationId: string; signatureId: string };
    await sealSignatureRequest(sealContext(systemContext(services, organizationId), signatureId), { id: signatureId });
  },
  retryDelayMs: (attempt) => jittered(DELAYS_MS[Math.min(attempt - 1, DELAYS_MS.length - 1)] ?? DELAYS_MS[0]!),
  leaseSeconds: 120,
  async gaveUp(job, services, error) {
    const { organizationId, signatureId } = job.payload as { organizationId: string; signatureId: string };
    await markSealGaveUp(sealContext(systemContext(services, organizationId), signatureId), { id: signatureId, error });
  },
};
