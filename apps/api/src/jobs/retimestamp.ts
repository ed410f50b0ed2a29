import { systemContext } from "../core/context";
import { retimestampSignatureRequest } from "../core/signatures/retimestamp";
import { jittered, type JobHandler } from "./runner";

export { RETIMESTAMP_JOB } from "../core/signatures/retimestamp";

/** Backoff between renewal attempts: 5 min, 30 min, then every 2 hours (the window is days). */
const DELAYS_MS = [300_000, 1_800_000, 7_200_000];

/** `signature.retimestamp`: a new document time stamp for a sealed request (core/signatures/retimestamp.ts). */
export const retimestampJobHandler: JobHandler = {
  async run(job, services) {
    const { organizationId, signatureId } = job.payload as { organizationId: string; signatureId: string };
    const ctx = systemContext(services, organizationId, `retimestamp-${signatureId}`);
    await retimestampSignatureRequest(ctx, { id: signatureId });
  },
  retryDelayMs: (attempt) => jittered(DELAYS_MS[Math.min(attempt - 1, DELAYS_MS.length - 1)] ?? DELAYS_MS[0]!),
  leaseSeconds: 120,
};
