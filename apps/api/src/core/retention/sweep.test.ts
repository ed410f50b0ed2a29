import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, auditLog, createDb, eq, jobs, retentionSweeps, rowsOf, sql, type Database } from "@clinsign/db";
import { systemContext, type Services } from "../context";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { seedPatientRecords, seedSeveralSignerRequest, type PatientRecords } from "../../testing/patient-records";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { createServices } from "../../services";
import { scheduleRetentionSweeps } from "../jobs/retention-sweeps";
import { createLegalHold, releaseLegalHold } from "./legal-holds";
import { updateRetentionPolicy } from "./policies";
import { previewRetention, runRetentionSweep } from "./sweep";
import { createStaffUser } from "../identity/store/accounts";

const DAY = 24 * 3600_000;
const T0 = new Date("2026-01-01T00:00:00Z");
/** The services' clock: tests move it, the database's own clock stays real. */
let now = T0;
const later = (ms: number) => new Date(T0.getTime() + ms);

let api: TestApi;
/** How often each stored file was deleted, by either process. */
const deletions = new Map<string, number>();

function countDeletes(services: Services) {
  const storage = services.storage;
  const original = storage.delete.bind(storage);
  storage.delete = async (key: string) => {
    deletions.set(key, (deletions.get(key) ?? 0) + 1);
    await original(key);
  };
}

beforeAll(async () => {
  api = await startTestApi();
  api.services.clock = () => now;
  countDeletes(api.services);
});
afterAll(() => api?.close());
beforeEach(() => {
  now = T0;
});

let patientCount = 0;
function patient() {
  patientCount += 1;
  const n = String(patientCount).padStart(4, "0");
  return { patientId: `P-${n}`, rnummer: `R-${n}`, phone: `+4917012${n}0` };
}

async function exists(table: string, id: string): Promise<boolean> {
  const result = await api.services.db.execute(sql`select 1 from ${sql.raw(table)} where id = ${id}::uuid`);
  return rowsOf(result).length === 1;
}

/** Which of a patient's records are still there. */
async function remaining(records: PatientRecords) {
  return {
    drafts: (await exists("drafts", records.draftId)) && (await exists("drafts", records.smsDraftId)),
    submission: await exists("submissions", records.submissionId),
    upload: await exists("form_uploads", records.uploadId),
    signatureRequest: await exists("signature_requests", records.signatureRequestId),
    message: await exists("messages", records.messageId),
    webhookDelivery: await exists("webhook_deliveries", records.webhookDeliveryId),
    embedSession: await exists("form_sessions", records.embedSessionId),
    formRequest: await exists("form_requests", records.formRequestId),
  };
}

const everything = {
  drafts: true,
  submission: true,
  upload: true,
  signatureRequest: true,
  message: true,
  webhookDelivery: true,
  embedSession: true,
  formRequest: true,
};

async function filesPresent(records: PatientRecords): Promise<boolean[]> {
  return Promise.all(records.objectKeys.map(async (key) => (await api.services.storage.get(key)) !== null));
}

async function auditedCounts(orgId: string, kind: string): Promise<number> {
  const rows = await api.services.db
    .select({ metadata: auditLog.metadata })
    .from(auditLog)
    .where(and(eq(auditLog.organizationId, orgId), eq(auditLog.action, "retention.deleted")));
  return rows
    .map((r) => r.metadata as { kind: string; records: number })
    .filter((m) => m.kind === kind)
    .reduce((sum, m) => sum + m.records, 0);
}

describe("retention by the services' clock", () => {
  let org: TestOrg;
  let other: TestOrg;
  let mine: PatientRecords;
  let theirs: PatientRecords;

  beforeAll(async () => {
    org = await api.createOrg();
    other = await api.createOrg();
    mine = await seedPatientRecords(org.ctx, patient(), { at: T0 });
    theirs = await seedPatientRecords(other.ctx, patient(), { at: T0 });
    await updateRetentionPolicy(org.ctx, {
      submissions: { amount: 1, unit: "years" },
      signatureRequests: { amount: 2, unit: "years" },
    });
  });

  it("keeps everything while no period has passed, and clinical records by default", async () => {
    now = later(29 * DAY);
    const preview = await previewRetention(org.ctx);
    expect(preview.kinds.every((k) => k.records === 0)).toBe(true);
    expect((await previewRetention(other.ctx)).kinds.find((k) => k.kind === "submissions")).toMatchObject({
      period: null,
      cutoff: null,
    });
    expect(await runRetentionSweep(org.ctx)).toMatchObject({ status: "done" });
    expect(await remaining(mine)).toEqual(everything);
  });

  it("deletes unsent drafts after 30 days, as the preview said", async () => {
    now = later(31 * DAY);
    const preview = await previewRetention(org.ctx);
    expect(preview.kinds.find((k) => k.kind === "drafts")).toMatchObject({ records: 2, held: 0 });
    expect(preview.kinds.filter((k) => k.kind !== "drafts").every((k) => k.records === 0)).toBe(true);
    const result = await runRetentionSweep(org.ctx);
    expect(result).toMatchObject({ status: "done", deleted: { drafts: 2, submissions: 0 } });
    expect(await remaining(mine)).toEqual({ ...everything, drafts: false });
  });

  it("deletes the outbox, the webhook log and expired sessions and links after 90 days", async () => {
    now = later(91 * DAY);
    const preview = await previewRetention(org.ctx);
    expect(Object.fromEntries(preview.kinds.map((k) => [k.kind, k.records]))).toEqual({
      drafts: 0,
      submissions: 0,
      signatureRequests: 0,
      outbox: 1,
      webhookDeliveries: 1,
      sessions: 2,
    });
    await runRetentionSweep(org.ctx);
    expect(await remaining(mine)).toEqual({
      ...everything,
      drafts: false,
      message: false,
      webhookDelivery: false,
      embedSession: false,
      formRequest: false,
    });
  });

  it("deletes submissions with their attachments, then signature requests with their sealed files", async () => {
    now = later(366 * DAY);
    await runRetentionSweep(org.ctx);
    const after1y = await remaining(mine);
    expect(after1y).toMatchObject({ submission: false, upload: false, signatureRequest: true });
    // The upload's file is gone; the signature request's three files are still there.
    expect(await filesPresent(mine)).toEqual([true, true, true, false]);
    now = later(2 * 366 * DAY);
    await runRetentionSweep(org.ctx);
    expect(Object.values(await remaining(mine)).some(Boolean)).toBe(false);
    expect(await filesPresent(mine)).toEqual([false, false, false, false]);
    for (const key of mine.objectKeys) expect(deletions.get(key)).toBe(1);
    // One audit entry per batch, counts only.
    expect(await auditedCounts(org.orgId, "drafts")).toBe(2);
    expect(await auditedCounts(org.orgId, "signatureRequests")).toBe(1);
    const entries = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "retention.deleted"));
    expect(JSON.stringify(entries)).not.toMatch(/P-\d{4}|R-\d{4}|\+49170/);
  });

  it("leaves another organization's data alone", async () => {
    expect(await remaining(theirs)).toEqual(everything);
    expect(await filesPresent(theirs)).toEqual([true, true, true, true]);
    // Its own defaults apply when it sweeps: drafts and the 90-day kinds, never clinical records.
    now = later(3 * 366 * DAY);
    await runRetentionSweep(other.ctx);
    expect(await remaining(theirs)).toEqual({
      ...everything,
      drafts: false,
      message: false,
      webhookDelivery: false,
      embedSession: false,
      formRequest: false,
    });
  });
});

describe("several signers and the sweep", () => {
  it("deletes every signer's drawn signature with the request, not only the request's own files", async () => {
    const org = await api.createOrg();
    await updateRetentionPolicy(org.ctx, { signatureRequests: { amount: 30, unit: "days" } });
    const request = await seedSeveralSignerRequest(org.ctx, patient(), { at: T0 });
    for (const key of request.signerImageKeys) expect(await api.services.storage.stat(key)).not.toBeNull();
    now = later(31 * DAY);
    expect(await runRetentionSweep(org.ctx)).toMatchObject({ deleted: { signatureRequests: 1 } });
    expect(await exists("signature_requests", request.signatureRequestId)).toBe(false);
    for (const id of request.signerIds) expect(await exists("signature_signers", id)).toBe(false);
    for (const key of request.signerImageKeys) expect(await api.services.storage.stat(key), key).toBeNull();
    // The batch's audit entry counts the two images among its files.
    const [entry] = await api.services.db
      .select({ metadata: auditLog.metadata })
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "retention.deleted")));
    expect(entry!.metadata).toMatchObject({ kind: "signatureRequests", records: 1, files: 2 });
  });
});

describe("legal holds and the sweep", () => {
  it("deletes nothing of a held patient, shows them as held in the preview, and deletes once released", async () => {
    const org = await api.createOrg();
    await updateRetentionPolicy(org.ctx, {
      submissions: { amount: 30, unit: "days" },
      signatureRequests: { amount: 30, unit: "days" },
    });
    const heldPatient = patient();
    const free = patient();
    const held = await seedPatientRecords(org.ctx, heldPatient, { at: T0 });
    const gone = await seedPatientRecords(org.ctx, free, { at: T0 });
    const hold = await createLegalHold(org.ctx, { selector: { patientId: heldPatient.patientId }, reason: "Court" });
    const byRnummer = await createLegalHold(org.ctx, { selector: { rnummer: heldPatient.rnummer }, reason: "Court" });
    now = later(400 * DAY);
    const preview = await previewRetention(org.ctx);
    const counts = Object.fromEntries(preview.kinds.map((k) => [k.kind, [k.records, k.held]]));
    expect(counts).toEqual({
      drafts: [2, 2],
      submissions: [1, 1],
      signatureRequests: [1, 1],
      outbox: [1, 1],
      webhookDeliveries: [1, 1],
      sessions: [2, 2],
    });
    await runRetentionSweep(org.ctx);
    expect(await remaining(held)).toEqual(everything);
    expect(await filesPresent(held)).toEqual([true, true, true, true]);
    expect(Object.values(await remaining(gone)).some(Boolean)).toBe(false);
    await releaseLegalHold(org.ctx, { id: hold.id });
    await runRetentionSweep(org.ctx);
    // The signature request was held by the patient id only; the rest is still held by the case number.
    expect(await remaining(held)).toMatchObject({ signatureRequest: false, submission: true, drafts: true });
    await releaseLegalHold(org.ctx, { id: byRnummer.id });
    await runRetentionSweep(org.ctx);
    expect(Object.values(await remaining(held)).some(Boolean)).toBe(false);
    expect(await filesPresent(held)).toEqual([false, false, false, false]);
  });
});

describe("a sweep that stops in the middle", () => {
  async function orgWithOldRequests(count: number) {
    const org = await api.createOrg();
    await updateRetentionPolicy(org.ctx, { signatureRequests: { amount: 30, unit: "days" } });
    const records: PatientRecords[] = [];
    for (let i = 0; i < count; i++) records.push(await seedPatientRecords(org.ctx, patient(), { at: T0 }));
    return { org, records };
  }

  it("loses nothing and deletes nothing twice when a batch throws, and the next run resumes", async () => {
    const { org, records } = await orgWithOldRequests(5);
    now = later(40 * DAY);
    let batches = 0;
    await expect(
      runRetentionSweep(org.ctx, {
        batchSize: 2,
        inBatch: (kind) => {
          if (kind === "signatureRequests" && ++batches === 2) throw new Error("the process died");
        },
      }),
    ).rejects.toThrow("the process died");
    // The first batch (2 requests) is committed with its files gone; the second rolled back whole.
    const left = await Promise.all(records.map((r) => exists("signature_requests", r.signatureRequestId)));
    expect(left.filter(Boolean)).toHaveLength(3);
    for (const [i, record] of records.entries()) {
      const present = await filesPresent(record);
      expect(present.slice(0, 3)).toEqual(left[i] ? [true, true, true] : [false, false, false]);
    }
    const [state] = await api.services.db
      .select()
      .from(retentionSweeps)
      .where(eq(retentionSweeps.organizationId, org.orgId));
    expect(state).toMatchObject({ runFinishedAt: null, leaseOwner: null, lastError: expect.stringContaining("died") });
    expect(state!.runDeleted.signatureRequests).toBe(2);

    const resumed = await runRetentionSweep(org.ctx, { batchSize: 2 });
    expect(resumed).toMatchObject({ status: "done", resumed: true, deleted: { signatureRequests: 3 } });
    expect(
      (await Promise.all(records.map((r) => exists("signature_requests", r.signatureRequestId)))).some(Boolean),
    ).toBe(false);
    for (const record of records) {
      expect(await filesPresent(record)).toEqual([false, false, false, true]);
      for (const key of record.objectKeys.slice(0, 3)) expect(deletions.get(key)).toBe(1);
    }
    const [finished] = await api.services.db
      .select()
      .from(retentionSweeps)
      .where(eq(retentionSweeps.organizationId, org.orgId));
    expect(finished).toMatchObject({ lastError: null, leaseOwner: null });
    expect(finished!.runFinishedAt).not.toBeNull();
    expect(finished!.runDeleted.signatureRequests).toBe(5);
    expect(await auditedCounts(org.orgId, "signatureRequests")).toBe(5);
  });

  it("deletes the files of a batch whose process died after its commit, through the queued job", async () => {
    const { org, records } = await orgWithOldRequests(2);
    now = later(40 * DAY);
    await runRetentionSweep(org.ctx, { deleteFilesNow: false });
    expect(await filesPresent(records[0]!)).toEqual([true, true, true, true]);
    const queued = await api.services.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.organizationId, org.orgId), eq(jobs.kind, "storage.delete")));
    expect(queued).toHaveLength(1);
    expect(queued[0]!.status).toBe("pending");
    await new JobRunner(api.services, jobHandlers).runDue();
    for (const record of records) {
      expect(await filesPresent(record)).toEqual([false, false, false, true]);
      for (const key of record.objectKeys.slice(0, 3)) expect(deletions.get(key)).toBe(1);
    }
  });

  it("waits while another sweeper's lease runs, and takes over and resumes once it ran out", async () => {
    const { org, records } = await orgWithOldRequests(1);
    now = later(40 * DAY);
    await api.services.db.insert(retentionSweeps).values({
      organizationId: org.orgId,
      leaseOwner: "a process that died",
      leaseUntil: new Date(Date.now() + 60_000),
      runStartedAt: later(39 * DAY),
      runDeleted: { drafts: 7 },
    });
    expect(await runRetentionSweep(org.ctx)).toEqual({ status: "busy" });
    expect(await exists("signature_requests", records[0]!.signatureRequestId)).toBe(true);
    await api.services.db
      .update(retentionSweeps)
      .set({ leaseUntil: new Date(Date.now() - 1000) })
      .where(eq(retentionSweeps.organizationId, org.orgId));
    expect(await runRetentionSweep(org.ctx)).toMatchObject({ status: "done", resumed: true });
    const [state] = await api.services.db
      .select()
      .from(retentionSweeps)
      .where(eq(retentionSweeps.organizationId, org.orgId));
    expect(state!.runDeleted).toMatchObject({ drafts: 9, signatureRequests: 1 });
  });
});

describe("scheduling", () => {
  it("queues one sweep per organization and day, however many processes schedule", async () => {
    const org = await api.createOrg();
    now = later(1000 * DAY);
    const first = await Promise.all([scheduleRetentionSweeps(api.services), scheduleRetentionSweeps(api.services)]);
    expect(first[0] + first[1]).toBeGreaterThanOrEqual(1);
    const mine = () =>
      api.services.db
        .select()
        .from(jobs)
        .where(and(eq(jobs.organizationId, org.orgId), eq(jobs.kind, "retention.sweep")));
    expect(await mine()).toHaveLength(1);
    now = later(1000 * DAY + 3600_000);
    await scheduleRetentionSweeps(api.services);
    expect(await mine()).toHaveLength(1);
    now = later(1001 * DAY + 1000);
    await scheduleRetentionSweeps(api.services);
    expect(await mine()).toHaveLength(2);
  });

  it("lets admins set periods and see the preview in Settings; staff may look but not change", async () => {
    const org = await api.createOrg();
    const admin = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    const settings = await admin.retention.settings.query();
    expect(settings.policy).toEqual(settings.defaults);
    expect(settings.policy).toMatchObject({ drafts: { amount: 30, unit: "days" }, submissions: null });
    const updated = await admin.retention.updatePolicy.mutate({
      submissions: { amount: 10, unit: "years" },
      drafts: null,
    });
    expect(updated.policy).toMatchObject({ submissions: { amount: 10, unit: "years" }, drafts: null });
    expect(updated.policy.outbox).toEqual({ amount: 90, unit: "days" });
    // Audited with each period that changed, before and after.
    const [audited] = (await admin.audit.entries.query({ action: "retention.policy_updated", limit: 1 })).items;
    expect(audited!.metadata).toEqual({
      changed: ["drafts", "submissions"],
      changes: {
        drafts: { from: { amount: 30, unit: "days" }, to: null },
        submissions: { from: null, to: { amount: 10, unit: "years" } },
      },
    });
    await expect(admin.retention.updatePolicy.mutate({ outbox: { amount: 0, unit: "days" } })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
    });
    await expect(admin.retention.updatePolicy.mutate({ outbox: { amount: 101, unit: "years" } })).rejects.toMatchObject(
      { data: { code: "BAD_REQUEST" } },
    );
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: `staff-${org.orgId}@example.org`,
      password: "staff password 1",
      role: "staff",
    });
    const staff = api.trpc({ cookie: await logInCookie(api, `staff-${org.orgId}@example.org`, "staff password 1") });
    expect((await staff.retention.settings.query()).policy.submissions).toEqual({ amount: 10, unit: "years" });
    await expect(staff.retention.updatePolicy.mutate({ drafts: { amount: 5, unit: "days" } })).rejects.toMatchObject({
      data: { code: "FORBIDDEN" },
    });
    const preview = await staff.retention.preview.query();
    expect(preview.kinds.map((k) => k.kind)).toEqual([
      "drafts",
      "submissions",
      "signatureRequests",
      "outbox",
      "webhookDeliveries",
      "sessions",
    ]);
  });
});

describe.runIf(process.env.DATABASE_URL)("two API processes on one PostgreSQL database", () => {
  let second: Services;
  let database: Database;

  beforeAll(async () => {
    const url = (api.services.database as Database & { url?: string }).url!;
    database = createDb({ databaseUrl: url, maxConnections: 10 });
    second = await createServices(api.services.config, pino({ level: "silent" }), database);
    second.clock = () => now;
    countDeletes(second);
  });
  afterAll(async () => {
    await database?.close();
  });

  it("delete each row and each file once when both sweep the same organization at the same time", async () => {
    const org = await api.createOrg();
    await updateRetentionPolicy(org.ctx, {
      signatureRequests: { amount: 30, unit: "days" },
      submissions: { amount: 30, unit: "days" },
    });
    const records: PatientRecords[] = [];
    for (let i = 0; i < 8; i++) records.push(await seedPatientRecords(org.ctx, patient(), { at: T0 }));
    now = later(40 * DAY);
    // The second process starts while the first is inside its first batch.
    let started: Promise<unknown> | undefined;
    const first = runRetentionSweep(org.ctx, {
      batchSize: 3,
      inBatch: () => {
        started ??= runRetentionSweep(systemContext(second, org.orgId), { batchSize: 3 });
      },
    });
    const results = await Promise.all([first, first.then(() => started)]);
    expect(results[0]).toMatchObject({ status: "done", deleted: { signatureRequests: 8, submissions: 8 } });
    expect(results[1]).toEqual({ status: "busy" });
    // And both at once from the start, after the next day's records.
    const more: PatientRecords[] = [];
    for (let i = 0; i < 8; i++) more.push(await seedPatientRecords(org.ctx, patient(), { at: later(DAY) }));
    now = later(45 * DAY);
    const both = await Promise.all([
      runRetentionSweep(org.ctx, { batchSize: 2 }),
      runRetentionSweep(systemContext(second, org.orgId), { batchSize: 2 }),
    ]);
    const deleted = both.map((r) => (r.status === "done" ? r.deleted.signatureRequests : 0));
    expect(deleted[0]! + deleted[1]!).toBe(8);
    for (const record of [...records, ...more]) {
      expect(await remaining(record)).toMatchObject({ signatureRequest: false, submission: false, upload: false });
      expect(await filesPresent(record)).toEqual([false, false, false, false]);
      for (const key of record.objectKeys) expect(deletions.get(key)).toBe(1);
    }
    expect(await auditedCounts(org.orgId, "signatureRequests")).toBe(16);
    expect(await auditedCounts(org.orgId, "submissions")).toBe(16);
  });
});
