import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentVersions, eq, jobs, organizationBranding, signatureRequests, storageOrphans } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { startTestApi, type TestApi } from "../../testing/harness";
import { seedPatientRecords, seedSeveralSignerRequest } from "../../testing/patient-records";
import { startTestS3, type TestS3 } from "../../testing/s3-server";
import { pageImageKey, pageManifestKey } from "../documents/page-images";
import { S3Storage } from "../files/s3-storage";
import { runJobNow } from "./execute";
import { DbStorage, FsStorage, type FileStorage } from "../files/storage";
import {
  reconcileStorage,
  scheduleStorageReconciliation,
  STORAGE_RECONCILE_JOB,
  storageOrphanReport,
} from "./storage-reconciliation";

const HOUR = 3600_000;
const GRACE = 168 * HOUR; // the default STORAGE_ORPHAN_GRACE_HOURS
const T0 = new Date("2026-03-01T00:00:00Z");
let now = T0;

let api: TestApi;
let s3: TestS3;
const dir = mkdtempSync(join(tmpdir(), "clinsign-reconcile-"));

beforeAll(async () => {
  api = await startTestApi();
  api.services.clock = () => now;
  s3 = await startTestS3(["reconcile-s3"]);
});
afterAll(async () => {
  await api?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function* once(bytes: Buffer) {
  yield bytes;
}

const backends: [string, () => FileStorage][] = [
  ["fs", () => new FsStorage(dir)],
  ["db", () => new DbStorage(api.services.db)],
  ["s3", () => new S3Storage(s3.settings())],
];

describe.each(backends)("storage reconciliation on %s storage", (kind, open) => {
  it("reports an object no row references, deletes it only after the grace period, never one a row references", async () => {
    const storage = open();
    api.services.storage = storage;
    expect(storage.kind).toBe(kind);
    now = T0;
    // The report of the backend tested before is not this one's.
    await api.services.db.delete(storageOrphans);
    const org = await api.createOrg();
    const put = async (prefix: string) => (await storage.put(prefix, Buffer.from(`${prefix} ${Math.random()}`))).key;

    // Referenced: a patient's records (documents, sealed files, upload), both signers' drawn
    // signatures, the page images of a document's PDF, and a logo the branding shows.
    const records = await seedPatientRecords(
      org.ctx,
      { patientId: "P-1", rnummer: "R-1", phone: "+4917000000001" },
      { at: T0 },
    );
    const signers = await seedSeveralSignerRequest(
      org.ctx,
      { patientId: "P-2", rnummer: "R-2", phone: "+4917000000002" },
      { at: T0 },
    );
    const [version] = await api.services.db
      .select({ storageKey: documentVersions.storageKey })
      .from(documentVersions)
      .where(eq(documentVersions.organizationId, org.orgId));
    const pageKeys = [pageImageKey(version!.storageKey, 1, 480), pageManifestKey(version!.storageKey)];
    for (const key of pageKeys) await storage.putAs(key, once(Buffer.from("page")));
    const logoKey = await put(`logo-${org.orgId}`);
    await org.ctx.scope.insert(organizationBranding, { logoUrl: `/branding/logos/${logoKey.slice(5)}` });
    const referenced = [...records.objectKeys, ...signers.signerImageKeys, version!.storageKey, ...pageKeys, logoKey];

    // Not referenced: a signer image left behind, an unused logo; one written moments before its row
    // commits; one that gets its row between the listing and the deletion; a key of no known kind.
    const orphan = await put("signatures");
    const unusedLogo = await put(`logo-${org.orgId}`);
    const inFlight = await put("signed");
    const late = await put("signed");
    const foreign = await put("exports");

    const first = await reconcileStorage(api.services);
    expect(first).toMatchObject({ deleted: 0, listed: referenced.length + 5, referenced: referenced.length });
    const report = await storageOrphanReport(api.services);
    expect(report.orphans.map((o) => o.key).sort()).toEqual([orphan, unusedLogo, inFlight, late, foreign].sort());
    expect(report.orphans.find((o) => o.key === orphan)).toMatchObject({
      firstSeenAt: T0.toISOString(),
      deletesAfter: new Date(T0.getTime() + GRACE).toISOString(),
    });
    expect(report.orphans.find((o) => o.key === foreign)!.deletesAfter).toBeNull();
    expect(report.lastRun).toMatchObject({ result: { orphans: 5, newOrphans: 5, deleted: 0 }, error: null });

    // The in-flight object's row commits: it leaves the report.
    await org.ctx.scope.update(
      signatureRequests,
      { stampedKey: inFlight },
      eq(signatureRequests.id, records.signatureRequestId),
    );

    // Within the grace period nothing is deleted.
    now = new Date(T0.getTime() + GRACE - HOUR);
    expect(await reconcileStorage(api.services)).toMatchObject({ deleted: 0, orphans: 4, newOrphans: 0 });
    for (const key of [orphan, unusedLogo, late, foreign, inFlight])
      expect(await storage.stat(key), key).not.toBeNull();

    // After it: the orphans go, except the one whose row committed before the re-check and the unknown kind.
    now = new Date(T0.getTime() + GRACE + HOUR);
    const last = await reconcileStorage(api.services, {
      beforeDeleting: () =>
        org.ctx.scope.update(
          signatureRequests,
          { metadataKey: late },
          eq(signatureRequests.id, records.signatureRequestId),
        ),
    });
    expect(last).toMatchObject({ deleted: 2, orphans: 1, notDeletable: 1 });
    for (const key of [orphan, unusedLogo]) expect(await storage.stat(key), key).toBeNull();
    for (const key of [...referenced, inFlight, late, foreign]) expect(await storage.stat(key), key).not.toBeNull();
    const after = await storageOrphanReport(api.services);
    expect(after.orphans.map((o) => o.key)).toEqual([foreign]);
    expect(after.deleted.map((o) => o.key).sort()).toEqual([orphan, unusedLogo].sort());
  });
});

describe("the schedule", () => {
  it("queues one reconciliation a day, however many processes schedule", async () => {
    now = new Date("2026-06-01T00:00:00Z");
    const queued = await Promise.all([1, 2, 3].map(() => scheduleStorageReconciliation(api.services)));
    expect(queued.filter(Boolean)).toHaveLength(1);
    expect(await scheduleStorageReconciliation(api.services)).toBe(false);
    now = new Date(now.getTime() + 25 * HOUR);
    expect(await scheduleStorageReconciliation(api.services)).toBe(true);
    const queuedJobs = await api.services.db.select().from(jobs).where(eq(jobs.kind, STORAGE_RECONCILE_JOB));
    expect(queuedJobs.length).toBeGreaterThanOrEqual(2);
    // The queued job is the reconciliation: it runs and records its run for the report.
    expect(await runJobNow(api.services, queuedJobs[0]!.id, jobHandlers[STORAGE_RECONCILE_JOB]!)).toBe(true);
    expect((await storageOrphanReport(api.services)).lastRun).toMatchObject({
      finishedAt: now.toISOString(),
      error: null,
    });
  });
});
