import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legalHoldListInput, type FormField } from "@clinsign/contracts";
import {
  auditLog,
  documentVersions,
  eq,
  legalHolds,
  patientErasures,
  rowsOf,
  signatureSigners,
  sql,
} from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { seedPatientRecords, seedSeveralSignerRequest } from "../../testing/patient-records";
import { startReceiver, type Receiver } from "../../testing/receiver";
import {
  bearer,
  makeBilevelPng,
  pngDataUrl,
  signAndSeal,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { recordAudit } from "../audit/audit";
import { verifyOrganizationChain } from "../audit/audit-log";
import { updateOrganizationSettings } from "../organizations/organizations";
import { createLegalHold, listLegalHolds, releaseLegalHold } from "../retention/legal-holds";
import { updateRetentionPolicy } from "../retention/policies";
import { erasePatient, finishErasureObjects } from "./erasure";
import { createStaffUser } from "../identity/store/accounts";

// Patient X is erased; patient Y of the same clinic and the same identifiers in another clinic stay.
const X = { patientId: "PX-erase-7391", rnummer: "RX-erase-5512", phone: "+4915112345671" };
const X_VALUES = ["Wundheilung-Xq7", "Entwurf-Xq7", "befund-Xq7", "UPLOADBYTES-Xq7"];
const Y = { patientId: "PY-keep-2208", rnummer: "RY-keep-8830", phone: "+4915112345672" };
const Y_VALUES = ["Nachsorge-Yq3"];
const X_TERMS = [X.patientId, X.rnummer, X.phone, ...X_VALUES];
/** What staff type to erase X: the patient ID again, and why. */
const X_CONFIRMED = { confirmation: X.patientId, reason: "Art. 17 request of the patient; no treatment took place" };

const fields: FormField[] = [
  { id: "1", type: "text", key: "note", label: "Notiz" },
  { id: "2", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
  { id: "3", type: "signature", key: "consent", label: "Einwilligung" },
];

let api: TestApi;
let files: FileServer;
let receiver: Receiver;
let clinic: TestOrg;
let otherClinic: TestOrg;
let xObjects: string[] = [];
let yObjects: string[] = [];
let otherClinicObjects: string[] = [];
let templates = 0;

/** Every text and jsonb column of every table: rows (of `orgId`, where the table has the column) naming a term. */
async function scanTables(orgId: string, terms: string[]): Promise<string[]> {
  const db = api.services.db;
  const columns = rowsOf<{ table_name: string; column_name: string; data_type: string }>(
    await db.execute(sql`select table_name, column_name, data_type from information_schema.columns
      where table_schema = 'public' and data_type in ('text', 'jsonb', 'json', 'character varying', 'ARRAY')`),
  );
  const tenant = new Set(
    rowsOf<{ table_name: string }>(
      await db.execute(sql`select table_name from information_schema.columns
        where table_schema = 'public' and column_name = 'organization_id'`),
    ).map((r) => r.table_name),
  );
  const hits: string[] = [];
  for (const { table_name: table, column_name: column } of columns) {
    const owned = tenant.has(table) ? sql`organization_id = ${orgId}::uuid and` : sql``;
    for (const term of terms) {
      const [row] = rowsOf<{ n: number }>(
        await db.execute(
          sql`select count(*)::int as n from ${sql.identifier(table)} where ${owned} strpos(${sql.identifier(column)}::text, ${term}) > 0`,
        ),
      );
      if (row && row.n > 0) hits.push(`${table}.${column}: ${term}`);
    }
  }
  return hits;
}

/** Every stored object whose bytes contain a term. */
async function scanObjects(terms: string[]): Promise<string[]> {
  const hits: string[] = [];
  for await (const key of api.services.storage.list()) {
    const bytes = (await api.services.storage.get(key))!.toString("latin1");
    for (const term of terms) if (bytes.includes(term)) hits.push(`${key}: ${term}`);
  }
  return hits;
}

async function storedKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const key of api.services.storage.list()) keys.add(key);
  return keys;
}

/** Row counts of every public table (of one organization where the table has one): "nothing changed". */
async function tableCounts(orgId: string): Promise<Record<string, number>> {
  const db = api.services.db;
  const tables = rowsOf<{ table_name: string; tenant: boolean }>(
    await db.execute(sql`select t.table_name, exists (select 1 from information_schema.columns c
        where c.table_schema = 'public' and c.table_name = t.table_name and c.column_name = 'organization_id') as tenant
      from information_schema.tables t where t.table_schema = 'public' and t.table_type = 'BASE TABLE'`),
  );
  const counts: Record<string, number> = {};
  for (const { table_name: table, tenant } of tables) {
    if (table === "rate_limits") continue; // the erasure's own rate-limit counter
    const where = tenant ? sql`where organization_id = ${orgId}::uuid` : sql``;
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from ${sql.identifier(table)} ${where}`),
    );
    counts[table] = row!.n;
  }
  return counts;
}

/** One patient's records through the real doors: embed session, draft, upload, submission, SMS form request, signature. */
async function patientThroughTheDoors(
  patient: typeof X,
  values: { note: string; draft?: string; fileName?: string; fileBytes?: string; signed?: boolean },
) {
  const t = await activeTemplate(clinic, fields, `Anamnese ${++templates}`);
  const sessionId = await newSession(api, clinic, t.identifier, {
    rnummer: patient.rnummer,
    phone: patient.phone,
    draftKey: `dk-${patient.rnummer}`,
  });
  if (values.draft) {
    const draft = await api.request("POST", "/api/embed/drafts", {
      body: { sessionId, draftKey: `dk-${patient.rnummer}`, values: { note: values.draft } },
    });
    expect(draft.status).toBe(200);
  }
  let scan: unknown[] = [];
  if (values.fileName) {
    const form = new FormData();
    form.append("sessionId", sessionId);
    const pdf = Buffer.from(`%PDF-1.4\n${values.fileBytes}\n`);
    form.append("file", new Blob([new Uint8Array(pdf)], { type: "application/pdf" }), values.fileName);
    const uploaded = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
    expect(uploaded.status).toBe(200);
    scan = ((await uploaded.json()) as { files: unknown[] }).files;
  }
  const submit = await api.request("POST", "/api/embed/submit", {
    body: {
      sessionId,
      values: {
        note: values.note,
        ...(scan.length && { scan }),
        ...(values.signed && { consent: pngDataUrl(makeBilevelPng(60, 20)) }),
      },
    },
  });
  expect(submit.status).toBe(200);
  const smsForm = await api.request("POST", "/api/portal/request", {
    body: { ...creds(clinic), phone: patient.phone, rnummer: patient.rnummer, templateIdentifier: t.identifier },
  });
  expect(smsForm.status).toBe(200);
  const signed = await signAndSeal(api, files, clinic, patient.patientId);
  return { signatureId: signed.id };
}

beforeAll(async () => {
  files = await startFileServer();
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `${files.hostPort},127.0.0.1:${receiver.port}` });
  clinic = await api.createOrg("Klinik Nord");
  otherClinic = await api.createOrg("Klinik Süd");
  await updateOrganizationSettings(clinic.ctx, { webhookUrls: [`${receiver.url}/hook`] });

  const before = await storedKeys();
  await patientThroughTheDoors(X, {
    note: X_VALUES[0]!,
    draft: X_VALUES[1]!,
    fileName: `${X_VALUES[2]}.pdf`,
    fileBytes: X_VALUES[3]!,
    signed: true,
  });
  // An audit entry written before migration 0029 (no salt: hashed with its content) that names the patient.
  await recordAudit(clinic.ctx, { action: "test.legacy", metadata: { rnummer: X.rnummer, note: "before 0029" } });
  await api.services.db.update(auditLog).set({ personalSalt: null }).where(eq(auditLog.action, "test.legacy"));
  const afterX = await storedKeys();
  // The clinic's own document (A6) is not the patient's: it stays.
  const documentsKeys = new Set((await api.services.db.select().from(documentVersions)).map((v) => v.storageKey));
  xObjects = [...afterX].filter((k) => !before.has(k) && !documentsKeys.has(k));
  await patientThroughTheDoors(Y, { note: Y_VALUES[0]! });
  const afterY = await storedKeys();
  const allDocuments = new Set((await api.services.db.select().from(documentVersions)).map((v) => v.storageKey));
  yObjects = [...afterY].filter((k) => !afterX.has(k) && !allDocuments.has(k));
  // The same identifiers in another organization are another clinic's patient.
  otherClinicObjects = (await seedPatientRecords(otherClinic.ctx, X, { at: new Date() })).objectKeys;
  // Chain what was written, so erasure meets chained entries of both forms (and verify starts green).
  expect((await verifyOrganizationChain(clinic.ctx)).ok).toBe(true);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await files?.close();
  await receiver?.close();
});

describe("patient erasure", () => {
  it("finds the patient's records first (dry run) and changes nothing", async () => {
    expect(await scanTables(clinic.orgId, X_TERMS)).not.toEqual([]);
    const counts = await tableCounts(clinic.orgId);
    const preview = await erasePatient(clinic.ctx, { selector: X, dryRun: true });
    expect(preview).toMatchObject({ status: "preview", dryRun: true, erasureId: null, legalHold: false });
    expect(preview.counts).toMatchObject({
      embedSessions: 1,
      drafts: 0, // submitted: F10 deleted the session's draft
      submissions: 1,
      uploads: 1,
      formRequests: 1,
      otpChallenges: 0,
      signatureRequests: 1,
      messages: 1,
    });
    expect(preview.counts.webhookDeliveries).toBeGreaterThanOrEqual(3); // draft saved, submitted, signature events
    expect(preview.counts.auditEntries).toBeGreaterThanOrEqual(8);
    expect(preview.objects).toEqual({ found: xObjects.length, deleted: 0, pending: 0 });
    // Signed consents are flagged (retention duty), with the organization's periods (none set: kept).
    expect(preview.retention).toEqual({
      signedDocuments: 1,
      signedSubmissions: 1,
      periods: { signatureRequests: null, submissions: null },
    });
    expect(preview.reason).toBeNull();
    // The receipt names no patient value.
    for (const term of X_TERMS) expect(JSON.stringify(preview)).not.toContain(term);
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    for (const key of xObjects) expect(await api.services.storage.stat(key)).not.toBeNull();
  });

  it("reads the phone as the new-request forms do: national, with 00 or spaces, the same records; no number is 400", async () => {
    const byE164 = await erasePatient(clinic.ctx, { selector: { phone: X.phone }, dryRun: true });
    expect(byE164.counts.submissions).toBe(1);
    for (const phone of ["0151 12345671", "0049 151 1234 5671", "+49 (151) 123-45671"]) {
      const preview = await erasePatient(clinic.ctx, { selector: { phone }, dryRun: true });
      expect(preview.counts, phone).toEqual(byE164.counts);
      expect(preview.digests, phone).toEqual(byE164.digests);
    }
    // A string that is no number is refused, never searched for (it would match other patients' message bodies).
    for (const phone of ["12", "abc", "+49"])
      await expect(erasePatient(clinic.ctx, { selector: { phone }, dryRun: true }), phone).rejects.toMatchObject({
        code: "invalid_request",
        details: { field: "phone" },
      });
  });

  it("refuses to erase without the identifier typed again and a reason (400) and erases nothing", async () => {
    const owner = api.trpc({ cookie: await logInCookie(api, clinic.ownerEmail, clinic.ownerPassword) });
    const counts = await tableCounts(clinic.orgId);
    const refused = async (input: { confirmation?: string; reason?: string }, field: string) =>
      expect(erasePatient(clinic.ctx, { selector: X, ...input }), JSON.stringify(input)).rejects.toMatchObject({
        code: "invalid_request",
        details: { field },
      });
    await refused({ reason: X_CONFIRMED.reason }, "confirmation");
    await refused({ confirmation: X.patientId }, "reason");
    await refused({ confirmation: X.rnummer, reason: X_CONFIRMED.reason }, "confirmation"); // the patient ID is asked for
    await refused({ confirmation: X.patientId.toLowerCase(), reason: X_CONFIRMED.reason }, "confirmation");
    await refused({ confirmation: `${X.patientId}1`, reason: X_CONFIRMED.reason }, "confirmation");
    await refused({ confirmation: X.patientId, reason: " x " }, "reason");
    await refused({ confirmation: X.patientId, reason: "y".repeat(501) }, "reason");
    await refused({ confirmation: X.patientId, reason: `Wunsch von ${X.rnummer}` }, "reason"); // names the patient
    // Through tRPC (the console) and REST: the contract refuses a missing field before the service runs.
    await expect(owner.patients.erase.mutate({ selector: X, confirmation: X.patientId })).rejects.toMatchObject({
      data: { code: "BAD_REQUEST" },
    });
    await expect(
      owner.patients.erase.mutate({ selector: X, confirmation: "someone else", reason: X_CONFIRMED.reason }),
    ).rejects.toMatchObject({ data: { code: "BAD_REQUEST" } });
    const rest = await api.request("POST", "/patients/erase", {
      headers: bearer(clinic),
      body: { patient_id: X.patientId, reason: X_CONFIRMED.reason },
    });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: "invalid_request", details: { field: "confirmation" } });
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    for (const key of xObjects) expect(await api.services.storage.stat(key)).not.toBeNull();
  });

  it("erases everything of the patient, leaves no identifier or value in any table or object, and the audit chain verifies", async () => {
    const yBefore = await scanTables(clinic.orgId, [Y.patientId, Y.rnummer, Y.phone, ...Y_VALUES]);
    const otherBefore = await tableCounts(otherClinic.orgId);
    const receipt = await erasePatient(clinic.ctx, { selector: X, ...X_CONFIRMED });
    expect(receipt).toMatchObject({
      status: "erased",
      dryRun: false,
      erasureId: expect.any(String),
      reason: X_CONFIRMED.reason,
      retention: { signedDocuments: 1, signedSubmissions: 1 },
    });
    expect(receipt.objects).toEqual({ found: xObjects.length, deleted: xObjects.length, pending: 0 });
    for (const term of X_TERMS) expect(JSON.stringify(receipt)).not.toContain(term);

    expect(await scanTables(clinic.orgId, X_TERMS)).toEqual([]);
    expect(await scanObjects(X_TERMS)).toEqual([]);
    const keys = await storedKeys();
    for (const key of xObjects) expect(keys.has(key), key).toBe(false);
    // Patient Y and the other clinic are untouched.
    expect(await scanTables(clinic.orgId, [Y.patientId, Y.rnummer, Y.phone, ...Y_VALUES])).toEqual(yBefore);
    for (const key of [...yObjects, ...otherClinicObjects]) expect(keys.has(key), key).toBe(true);
    expect(await tableCounts(otherClinic.orgId)).toEqual(otherBefore);
    expect(await scanTables(otherClinic.orgId, [X.patientId, X.rnummer, X.phone])).not.toEqual([]);

    const verdict = await verifyOrganizationChain(clinic.ctx);
    expect(verdict).toMatchObject({ ok: true, problem: null });
    expect(verdict.erased?.entries).toBe(receipt.counts.auditEntries);
    expect(verdict.erased?.linkOnly).toBe(1); // the entry from before 0029
    const [stored] = await api.services.db
      .select()
      .from(patientErasures)
      .where(eq(patientErasures.id, receipt.erasureId!));
    expect(stored).toMatchObject({ pendingKeys: [], completedAt: expect.any(Date), reason: X_CONFIRMED.reason });
    const [audited] = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "patient.erased"));
    expect(audited!.metadata).toMatchObject({ erasureId: receipt.erasureId });
    // The reason is the receipt's alone: not in the audit log.
    expect(JSON.stringify(audited)).not.toContain(X_CONFIRMED.reason);
  });

  it("finds nothing the second time, says so and changes nothing", async () => {
    const counts = await tableCounts(clinic.orgId);
    const again = await erasePatient(clinic.ctx, { selector: X, ...X_CONFIRMED });
    expect(again).toMatchObject({ status: "nothing_found", erasureId: null, reason: null });
    expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    expect((await verifyOrganizationChain(clinic.ctx)).ok).toBe(true);
  });

  it("still detects tampering with erased entries: content put back, the frame edited, the commitment replaced", async () => {
    const db = api.services.db;
    const [erased] = await db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.organizationId} = ${clinic.orgId}::uuid and ${auditLog.personalCommitment} is not null`)
      .limit(1);
    expect(erased).toMatchObject({ personalSalt: null, metadata: {}, ip: null, userAgent: null });
    const tamper = async (change: Partial<typeof auditLog.$inferInsert>) => {
      await db.update(auditLog).set(change).where(eq(auditLog.id, erased!.id));
      const verdict = await verifyOrganizationChain(clinic.ctx);
      await db
        .update(auditLog)
        .set({ metadata: {}, action: erased!.action, personalCommitment: erased!.personalCommitment })
        .where(eq(auditLog.id, erased!.id));
      return verdict;
    };
    expect(await tamper({ metadata: { rnummer: "made-up" } })).toMatchObject({ ok: false, problem: "chain_broken" });
    expect(await tamper({ action: "test.other" })).toMatchObject({ ok: false, problem: "chain_broken" });
    expect(await tamper({ personalCommitment: "0".repeat(64) })).toMatchObject({ ok: false, problem: "chain_broken" });
    expect((await verifyOrganizationChain(clinic.ctx)).ok).toBe(true);
  });

  it("refuses while a legal hold names the patient (409 legal_hold) and deletes nothing", async () => {
    const hold = await createLegalHold(clinic.ctx, { selector: { rnummer: Y.rnummer }, reason: "Rechtsstreit" });
    const counts = await tableCounts(clinic.orgId);
    await expect(
      erasePatient(clinic.ctx, {
        selector: { patientId: Y.patientId, rnummer: Y.rnummer },
        confirmation: Y.patientId,
        reason: "Art. 17 request",
      }),
    ).rejects.toMatchObject({ code: "conflict", details: { reason: "legal_hold" } });
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    const preview = await erasePatient(clinic.ctx, { selector: { rnummer: Y.rnummer }, dryRun: true });
    expect(preview).toMatchObject({ status: "preview", legalHold: true });
    // Through REST: 409 in area A's envelope.
    const refused = await api.request("POST", "/patients/erase", {
      headers: bearer(clinic),
      body: { rnummer: Y.rnummer, confirmation: Y.rnummer, reason: "Art. 17 request" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "conflict", details: { reason: "legal_hold" } });
    expect(hold.id).toEqual(expect.any(String));
  });

  it("erases every signer's drawn signature of a several-signer request and counts them on the receipt", async () => {
    const org = await api.createOrg("Klinik Mitte");
    const patient = { patientId: "PS-two-4410", rnummer: "RS-two-4410", phone: "+4915112345679" };
    const request = await seedSeveralSignerRequest(org.ctx, patient, { at: new Date() });
    const preview = await erasePatient(org.ctx, { selector: { patientId: patient.patientId }, dryRun: true });
    expect(preview.counts.signatureRequests).toBe(1);
    expect(preview.objects).toEqual({ found: 2, deleted: 0, pending: 0 });
    const receipt = await erasePatient(org.ctx, {
      selector: { patientId: patient.patientId },
      confirmation: patient.patientId,
      reason: "Art. 17 request of the patient",
    });
    expect(receipt).toMatchObject({ status: "erased", objects: { found: 2, deleted: 2, pending: 0 } });
    for (const key of request.signerImageKeys) expect(await api.services.storage.stat(key), key).toBeNull();
    const signers = await api.services.db
      .select({ id: signatureSigners.id })
      .from(signatureSigners)
      .where(eq(signatureSigners.signatureRequestId, request.signatureRequestId));
    expect(signers).toEqual([]);
  });

  it("blanks the released legal holds that named the patient: no identifier or reason, the id and dates kept", async () => {
    const org = await api.createOrg("Klinik Hafen");
    const patient = { patientId: "PH-hold-6620", rnummer: "RH-hold-6620", phone: "+4915112345677" };
    const other = { patientId: "PH-other-6621", rnummer: "RH-other-6621", phone: "+4915112345678" };
    await seedPatientRecords(org.ctx, patient, { at: new Date() });
    const released = await createLegalHold(org.ctx, {
      selector: { phone: "0151 12345677" }, // stored in E.164, as the finder reads the phone
      reason: "Streit um die Aufklärung von Frau H.",
    });
    await releaseLegalHold(org.ctx, { id: released.id });
    const byCaseNumber = await createLegalHold(org.ctx, { selector: { rnummer: patient.rnummer }, reason: "Prüfung" });
    await releaseLegalHold(org.ctx, { id: byCaseNumber.id });
    const othersHold = await createLegalHold(org.ctx, {
      selector: { patientId: other.patientId },
      reason: "Gutachten",
    });
    await releaseLegalHold(org.ctx, { id: othersHold.id });
    const [before] = await api.services.db.select().from(legalHolds).where(eq(legalHolds.id, released.id));

    await erasePatient(org.ctx, {
      selector: { patientId: patient.patientId, rnummer: patient.rnummer, phone: patient.phone },
      confirmation: patient.patientId,
      reason: "Art. 17 request of the patient",
    });
    const rows = await api.services.db.select().from(legalHolds).where(eq(legalHolds.organizationId, org.orgId));
    for (const id of [released.id, byCaseNumber.id]) {
      const row = rows.find((r) => r.id === id)!;
      expect(row).toMatchObject({
        patientId: null,
        rnummer: null,
        phone: null,
        reason: "",
        erasedAt: expect.any(Date),
      });
    }
    const blanked = rows.find((r) => r.id === released.id)!;
    expect(blanked).toMatchObject({
      createdAt: before!.createdAt,
      releasedAt: before!.releasedAt,
      createdByUserId: before!.createdByUserId,
    });
    // Another patient's released hold keeps what it says.
    expect(rows.find((r) => r.id === othersHold.id)).toMatchObject({
      patientId: other.patientId,
      reason: "Gutachten",
      erasedAt: null,
    });
    // The list still shows that the holds existed, naming no one.
    const list = await listLegalHolds(org.ctx, legalHoldListInput.parse({ status: "all" }));
    expect(list.items.map((i) => i.id)).toEqual(expect.arrayContaining([released.id, byCaseNumber.id]));
    expect(JSON.stringify(list)).not.toMatch(/PH-hold|RH-hold|12345677|Frau H/);
  });

  it("keeps the objects a failing store could not delete pending, and the job finishes them", async () => {
    const org = await api.createOrg("Klinik West");
    const seeded = await seedPatientRecords(org.ctx, X, { at: new Date() });
    const storage = api.services.storage;
    const realDelete = storage.delete.bind(storage);
    storage.delete = async () => {
      throw new Error("store unreachable");
    };
    let receipt;
    try {
      receipt = await erasePatient(org.ctx, { selector: { phone: X.phone }, confirmation: X.phone, reason: "test" });
    } finally {
      storage.delete = realDelete;
    }
    expect(receipt).toMatchObject({ status: "objects_pending" });
    expect(receipt.objects.pending).toBe(seeded.objectKeys.length);
    for (const key of seeded.objectKeys) expect(await storage.stat(key)).not.toBeNull();
    await finishErasureObjects(org.ctx, { erasureId: receipt.erasureId! });
    for (const key of seeded.objectKeys) expect(await storage.stat(key)).toBeNull();
    const [stored] = await api.services.db
      .select()
      .from(patientErasures)
      .where(eq(patientErasures.id, receipt.erasureId!));
    expect(stored).toMatchObject({ pendingKeys: [], completedAt: expect.any(Date) });
    expect((await verifyOrganizationChain(org.ctx)).ok).toBe(true);
  });

  it("REST: a hospital system erases with one call (dry run first) and gets a receipt; only its own patients", async () => {
    const org = await api.createOrg("Klinik Ost");
    await seedPatientRecords(
      org.ctx,
      { patientId: "PZ-1", rnummer: "RZ-1", phone: "+4915112345673" },
      { at: new Date() },
    );
    await updateRetentionPolicy(org.ctx, { signatureRequests: { amount: 10, unit: "years" } });
    const dry = await api.request("POST", "/patients/erase", {
      headers: bearer(org),
      body: { patient_id: "PZ-1", dry_run: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ status: "preview", dry_run: true, erasure_id: null, legal_hold: false });
    expect(dry.body.counts.signatureRequests).toBe(1);
    expect(dry.body.retention).toEqual({
      signed_documents: 1,
      signed_submissions: 0,
      periods: { signature_requests: { amount: 10, unit: "years" }, submissions: null },
    });
    expect(dry.body.reason).toBeNull();
    const why = { confirmation: "PZ-1", reason: "Request of the hospital system, ticket 4711" };
    // Another organization's token finds nothing of this clinic's patient.
    const foreign = await api.request("POST", "/patients/erase", {
      headers: bearer(otherClinic),
      body: { patient_id: "PZ-1", ...why },
    });
    expect(foreign.status).toBe(200);
    expect(foreign.body.status).toBe("nothing_found");
    const unconfirmed = await api.request("POST", "/patients/erase", {
      headers: bearer(org),
      body: { patient_id: "PZ-1" },
    });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body.error.code).toBe("invalid_request");
    const done = await api.request("POST", "/patients/erase", {
      headers: bearer(org),
      body: { patient_id: "PZ-1", ...why },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "erased", erasure_id: expect.any(String), reason: why.reason });
    // Values are parameters, whatever they hold (quotes, backslashes, commas and braces of an array literal).
    const oddNumber = 'R "1",\\x}{';
    await seedPatientRecords(
      org.ctx,
      { patientId: "PZ-odd", rnummer: oddNumber, phone: "+4915112345674" },
      { at: new Date() },
    );
    const odd = await api.request("POST", "/patients/erase", {
      headers: bearer(org),
      body: { rnummer: oddNumber, dry_run: true },
    });
    expect(odd.status).toBe(200);
    expect(odd.body.counts).toMatchObject({ formRequests: 1, submissions: 1, embedSessions: 1 });
    const bad = await api.request("POST", "/patients/erase", { headers: bearer(org), body: { dry_run: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
    const unauthenticated = await api.request("POST", "/patients/erase", { body: { patient_id: "PZ-1" } });
    expect(unauthenticated.status).toBe(401);
  });

  it("staff: owners and admins may erase, the staff role may not", async () => {
    const email = `staff-${Date.now()}@example.org`;
    await createStaffUser(api.services, {
      organizationId: clinic.orgId,
      email,
      password: "correct horse battery",
      role: "staff",
    });
    const staff = api.trpc({ cookie: await logInCookie(api, email, "correct horse battery") });
    await expect(staff.patients.erase.mutate({ selector: { rnummer: "nobody" }, dryRun: true })).rejects.toMatchObject({
      data: { code: "FORBIDDEN" },
    });
    const owner = api.trpc({ cookie: await logInCookie(api, clinic.ownerEmail, clinic.ownerPassword) });
    const preview = await owner.patients.erase.mutate({ selector: { rnummer: "nobody" }, dryRun: true });
    expect(preview.status).toBe("nothing_found");
  });
});
