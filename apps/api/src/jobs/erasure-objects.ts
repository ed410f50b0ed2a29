import { systemContext } from "../core/context";
import { finishErasureObjects } from "../core/patients/erasure";
import { jittered, type JobHandler } from "./runner";

export { ERASURE_OBJECTS_JOB } from "../core/patients/erasure";

/** Backoff between attempts: 1 min, 10 min, then every hour (the store was unreachable). */
const DELAYS_MS = [60_000, 600_000, 3_600_000];

/** `patient.erasure_objects`: deletes the stored objects an erasure left pending (core/patients/erasure.ts). */
export const erasureObjectsJobHandler: JobHandler = {
  async run(job, services) {
    const { organizationId, erasureId } = job.payload as { organizationId: string; erasureId: string };
    await finishErasureObjects(systemContext(services, organizationId), { erasureId });
  },
  retryDelayMs: (attempt) => jittered(DELAYS_MS[Math.min(attempt - 1, DELAYS_MS.length - 1)] ?? DELAYS_MS[0]!),
  leaseSeconds: 300,
};
