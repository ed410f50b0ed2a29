import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { auditLog, documentVersions, eq, patientErasures, rowsOf, sql } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { seedPatientRecords } from "../../testing/patient-records";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { bearer, signAndSeal, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { recordAudit } from "../audit/audit";
import { verifyOrganizationChain } from "../audit/audit-log";
import { updateOrganizationSettings } from "../organizations/organizations";
import { createLegalHold } from "../retention/legal-holds";
import { erasePatient, finishErasureObjects } from "./erasure";
import { createStaffUser } from "../identity/store/accounts";

// Patient X is erased; patient Y of the same clinic and the same identifiers in another clinic stay.
const X = { patientId: "PX-erase-7391", rnummer: "RX-erase-5512", phone: "+4915112345671" };
const X_VALUES = ["Wundheilung-Xq7", "Entwurf-Xq7", "befund-Xq7", "UPLOADBYTES-Xq7"];
const Y = { patientId: "PY-keep-2208", rnummer: "RY-keep-8830", phone: "+4915112345672" };
const Y_VALUES = ["Nachsorge-Yq3"];
const X_TERMS = [X.patientId, X.rnummer, X.phone, ...X_VALUES];

const fields: FormField[] = [
  { id: "1", type: "text", key: "note", label: "Notiz" },
  { id: "2", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
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
  values: { note: string; draft?: string; fileName?: string; fileBytes?: string },
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
    body: { sessionId, values: { note: values.note, ...(scan.length && { scan }) } },
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
    // The receipt names no patient value.
    for (const term of X_TERMS) expect(JSON.stringify(preview)).not.toContain(term);
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    for (const key of xObjects) expect(await api.services.storage.stat(key)).not.toBeNull();
  });

  it("erases everything of the patient, leaves no identifier or value in any table or object, and the audit chain verifies", async () => {
    const yBefore = await scanTables(clinic.orgId, [Y.patientId, Y.rnummer, Y.phone, ...Y_VALUES]);
    const otherBefore = await tableCounts(otherClinic.orgId);
    const receipt = await erasePatient(clinic.ctx, { selector: X });
    expect(receipt).toMatchObject({ status: "erased", dryRun: false, erasureId: expect.any(String) });
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
    expect(stored).toMatchObject({ pendingKeys: [], completedAt: expect.any(Date) });
    const [audited] = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "patient.erased"));
    expect(audited!.metadata).toMatchObject({ erasureId: receipt.erasureId });
  });

  it("finds nothing the second time, says so and changes nothing", async () => {
    const counts = await tableCounts(clinic.orgId);
    const again = await erasePatient(clinic.ctx, { selector: X });
    expect(again).toMatchObject({ status: "nothing_found", erasureId: null });
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
      erasePatient(clinic.ctx, { selector: { patientId: Y.patientId, rnummer: Y.rnummer } }),
    ).rejects.toMatchObject({ code: "conflict", details: { reason: "legal_hold" } });
    expect(await tableCounts(clinic.orgId)).toEqual(counts);
    const preview = await erasePatient(clinic.ctx, { selector: { rnummer: Y.rnummer }, dryRun: true });
    expect(preview).toMatchObject({ status: "preview", legalHold: true });
    // Through REST: 409 in area A's envelope.
    const refused = await api.request("POST", "/patients/erase", {
      headers: bearer(clinic),
      body: { rnummer: Y.rnummer },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "conflict", details: { reason: "legal_hold" } });
    expect(hold.id).toEqual(expect.any(String));
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
      receipt = await erasePatient(org.ctx, { selector: { phone: X.phone } });
    } finally {
      storage.delete = realDelete;
    }
    expect(receipt).toMatchObject({ status: "objects_pending" });
    expect(receipt.objects.pending).toBe(seeded.objectKeys.length);
    for (const key of seeded.objectKeys) expect(await storage.stat(key)).not.toBeNull();
    await finishErasureObjects(api.services, { organizationId: org.orgId, erasureId: receipt.erasureId! });
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
    const dry = await api.request("POST", "/patients/erase", {
      headers: bearer(org),
      body: { patient_id: "PZ-1", dry_run: true },
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ status: "preview", dry_run: true, erasure_id: null, legal_hold: false });
    expect(dry.body.counts.signatureRequests).toBe(1);
    // Another organization's token finds nothing of this clinic's patient.
    const foreign = await api.request("POST", "/patients/erase", {
      headers: bearer(otherClinic),
      body: { patient_id: "PZ-1" },
    });
    expect(foreign.status).toBe(200);
    expect(foreign.body.status).toBe("nothing_found");
    const done = await api.request("POST", "/patients/erase", { headers: bearer(org), body: { patient_id: "PZ-1" } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: "erased", erasure_id: expect.any(String) });
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
