import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, sql, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { seedPatientRecords, type PatientRecords } from "../../testing/patient-records";
import { heldRecord, isPatientUnderLegalHold } from "./legal-holds";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let admin: ReturnType<TestApi["trpc"]>;
let otherAdmin: ReturnType<TestApi["trpc"]>;
const anna = { patientId: "P-ANNA", rnummer: "R-100", phone: "+491701111111" };
const ben = { patientId: "P-BEN", rnummer: "R-200", phone: "+491702222222" };
let annaRecords: PatientRecords;
let benRecords: PatientRecords;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg();
  other = await api.createOrg();
  admin = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
  otherAdmin = api.trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) });
  const at = new Date("2020-01-01T00:00:00Z");
  annaRecords = await seedPatientRecords(org.ctx, anna, { at });
  benRecords = await seedPatientRecords(org.ctx, ben, { at });
});
afterAll(() => api?.close());

/** Which of a patient's records the SQL conditions of the retention sweep see as held. */
async function heldKinds(records: PatientRecords): Promise<string[]> {
  const tables = {
    signatureRequests: ["signature_requests", records.signatureRequestId],
    formRequests: ["form_requests", records.formRequestId],
    embedSessions: ["form_sessions", records.embedSessionId],
    drafts: ["drafts", records.draftId],
    submissions: ["submissions", records.submissionId],
    formUploads: ["form_uploads", records.uploadId],
    messages: ["messages", records.messageId],
    webhookDeliveries: ["webhook_deliveries", records.webhookDeliveryId],
  } as const;
  const held: string[] = [];
  for (const [kind, [table, id]] of Object.entries(tables)) {
    const [row] = await org.ctx.scope.execute<{ held: boolean }>(
      (o) =>
        sql`select ${heldRecord[kind as keyof typeof heldRecord]("r")} as held from ${sql.raw(table)} r where r.organization_id = ${o} and r.id = ${id}::uuid`,
    );
    if (row?.held) held.push(kind);
  }
  // The SMS form request's own draft is held through the request.
  const [sms] = await org.ctx.scope.execute<{ held: boolean }>(
    (o) =>
      sql`select ${heldRecord.drafts("r")} as held from drafts r where r.organization_id = ${o} and r.id = ${records.smsDraftId}::uuid`,
  );
  if (sms?.held) held.push("smsDraft");
  return held.sort();
}

const everyKind = [
  "drafts",
  "embedSessions",
  "formRequests",
  "formUploads",
  "messages",
  "signatureRequests",
  "smsDraft",
  "submissions",
  "webhookDeliveries",
];

describe("legal holds", () => {
  it("a hold on the patient id keeps the patient's signature requests, and the patient counts as held", async () => {
    expect(await isPatientUnderLegalHold(org.ctx, { patientId: anna.patientId })).toBe(false);
    const hold = await admin.retention.placeLegalHold.mutate({
      selector: { patientId: anna.patientId },
      reason: "Litigation 2026-17",
    });
    expect(hold).toMatchObject({ patientId: anna.patientId, rnummer: null, phone: null, releasedAt: null });
    expect(hold.createdBy).toBe(org.ownerEmail);
    expect(await isPatientUnderLegalHold(org.ctx, { patientId: anna.patientId })).toBe(true);
    // Found by the phone on her signature request, held through her patient id.
    expect(await isPatientUnderLegalHold(org.ctx, { phone: anna.phone })).toBe(true);
    expect(await isPatientUnderLegalHold(org.ctx, { patientId: ben.patientId })).toBe(false);
    expect(await heldKinds(annaRecords)).toContain("signatureRequests");
    expect(await heldKinds(benRecords)).toEqual([]);
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
    expect(await isPatientUnderLegalHold(org.ctx, { phone: anna.phone })).toBe(false);
  });

  it("a hold on the phone keeps every kind of record that carries it, and nothing of anyone else", async () => {
    const hold = await admin.retention.placeLegalHold.mutate({
      selector: { phone: anna.phone },
      reason: "Court order",
    });
    expect(await heldKinds(annaRecords)).toEqual(everyKind.filter((k) => k !== "webhookDeliveries"));
    expect(await heldKinds(benRecords)).toEqual([]);
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
    expect(await heldKinds(annaRecords)).toEqual([]);
  });

  it("a hold on the phone also keeps a record that wrote the number its own way", async () => {
    const [typed] = await org.ctx.scope
      .insert(submissions, {
        templateIdentifier: "intake-form",
        templateTitle: "Intake",
        templateSchema: { version: 1, fields: [] },
        values: {},
        phone: "0170 111 1111",
        actorType: "session",
      })
      .returning();
    const held = async () => {
      const [row] = await org.ctx.scope.execute<{ held: boolean }>(
        (o) =>
          sql`select ${heldRecord.submissions("r")} as held from submissions r where r.organization_id = ${o} and r.id = ${typed!.id}::uuid`,
      );
      return row!.held;
    };
    expect(await held()).toBe(false);
    const hold = await admin.retention.placeLegalHold.mutate({
      selector: { phone: anna.phone },
      reason: "Court order",
    });
    expect(await held()).toBe(true);
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
    await org.ctx.scope.delete(submissions, eq(submissions.id, typed!.id));
  });

  it("a hold on the case number keeps the form records, their drafts, uploads, messages and webhook bodies", async () => {
    const hold = await admin.retention.placeLegalHold.mutate({ selector: { rnummer: anna.rnummer }, reason: "Audit" });
    expect(await heldKinds(annaRecords)).toEqual(everyKind.filter((k) => k !== "signatureRequests"));
    expect(await isPatientUnderLegalHold(org.ctx, { rnummer: anna.rnummer })).toBe(true);
    expect(await isPatientUnderLegalHold(org.ctx, { patientId: anna.patientId })).toBe(false);
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
  });

  it("lists active holds by default and all on request, one page at a time", async () => {
    const a = await admin.retention.placeLegalHold.mutate({ selector: { rnummer: "R-1" }, reason: "one" });
    const b = await admin.retention.placeLegalHold.mutate({ selector: { rnummer: "R-2" }, reason: "two" });
    const first = await admin.retention.legalHolds.query({ limit: 1 });
    expect(first.items.map((h) => h.id)).toEqual([b.id]);
    expect(first.hasMore).toBe(true);
    const second = await admin.retention.legalHolds.query({ limit: 1, cursor: first.nextCursor! });
    expect(second.items.map((h) => h.id)).toEqual([a.id]);
    expect(second.hasMore).toBe(false);
    await admin.retention.releaseLegalHold.mutate({ id: a.id });
    await admin.retention.releaseLegalHold.mutate({ id: b.id });
    expect((await admin.retention.legalHolds.query({})).items).toEqual([]);
    const all = await admin.retention.legalHolds.query({ status: "all" });
    expect(all.items.length).toBeGreaterThanOrEqual(5);
    expect(all.items.every((h) => h.releasedAt !== null && h.releasedBy === org.ownerEmail)).toBe(true);
  });

  it("refuses a hold that names nobody, and a phone that is no number; stores a national number in E.164", async () => {
    await expect(admin.retention.placeLegalHold.mutate({ selector: {}, reason: "x" })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
    });
    await expect(
      admin.retention.placeLegalHold.mutate({ selector: { phone: "0170 12" }, reason: "x" }),
    ).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
    // As the new-request forms read numbers: national in the organization's country (DE).
    const hold = await admin.retention.placeLegalHold.mutate({ selector: { phone: "0170 1234567" }, reason: "x" });
    expect(hold.phone).toBe("+491701234567");
    expect(await isPatientUnderLegalHold(org.ctx, { phone: "+491701234567" })).toBe(true);
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
  });

  it("audits placing and releasing without any patient identifier", async () => {
    const hold = await admin.retention.placeLegalHold.mutate({ selector: { phone: "+491709999999" }, reason: "x" });
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
    const entries = await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId));
    const mine = entries.filter((e) => (e.metadata as { legalHoldId?: string }).legalHoldId === hold.id);
    expect(mine.map((e) => e.action).sort()).toEqual(["legal_hold.created", "legal_hold.released"]);
    expect(JSON.stringify(mine)).not.toContain("491709999999");
  });

  it("keeps organizations apart: another organization neither sees nor releases the hold, nor is held by it", async () => {
    const hold = await admin.retention.placeLegalHold.mutate({ selector: { patientId: ben.patientId }, reason: "x" });
    expect((await otherAdmin.retention.legalHolds.query({ status: "all" })).items).toEqual([]);
    await expect(otherAdmin.retention.releaseLegalHold.mutate({ id: hold.id })).rejects.toMatchObject({
      data: { code: "NOT_FOUND" },
    });
    expect(await isPatientUnderLegalHold(other.ctx, { patientId: ben.patientId })).toBe(false);
    expect((await admin.retention.legalHolds.query({})).items[0]!.releasedAt).toBeNull();
    await admin.retention.releaseLegalHold.mutate({ id: hold.id });
  });
});
