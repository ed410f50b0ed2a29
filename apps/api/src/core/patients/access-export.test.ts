import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { auditLog, eq } from "@clinsign/db";
import { verifySealedPdf } from "../signatures/verify";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { bearer, signAndSeal, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { readZip } from "../../testing/zip";
import type { AccessExportManifest } from "./access-export";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;

const FIELDS: FormField[] = [
  { id: "1", type: "text", key: "name", label: "Name" },
  { id: "2", type: "file", key: "scan", label: "Befund", accept: "application/pdf" },
];

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** What one patient has at one organization: a sealed request, submissions with attachments, a draft. */
interface Seeded {
  signatureId: string;
  sealedPdf: Buffer;
  submissionIds: string[];
  attachments: Buffer[];
}

async function upload(who: TestOrg, identifier: string, bytes: Buffer, name: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ ...creds(who), templateIdentifier: identifier, fieldKey: "scan" }))
    form.append(k, v);
  form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), name);
  const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { files: { name: string; path: string; size: number; type: string }[] }).files[0]!;
}

async function seedPatient(who: TestOrg, patientId: string, rnummer: string, name: string): Promise<Seeded> {
  const sealed = await signAndSeal(api, files, who, patientId);
  const template = await activeTemplate(who, FIELDS, `Aufnahme ${rnummer}`);
  const submissionIds: string[] = [];
  const attachments: Buffer[] = [];
  for (const n of [1, 2]) {
    const bytes = Buffer.from(`%PDF-1.4\n% Befund ${n} von ${name} <script>alert(1)</script>\n`);
    attachments.push(bytes);
    const file = await upload(who, template.identifier, bytes, `Befund ${n} Müller.pdf`);
    const res = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(who), templateIdentifier: template.identifier, rnummer, values: { name, scan: [file] } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    submissionIds.push(res.body.submissionId as string);
  }
  const sessionId = await newSession(api, who, template.identifier, { rnummer, draftKey: `draft-${rnummer}` });
  const draft = await api.request("POST", "/api/embed/drafts", {
    body: { sessionId, draftKey: `draft-${rnummer}`, values: { name } },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  return { signatureId: sealed.id, sealedPdf: sealed.pdf, submissionIds, attachments };
}

async function exportZip(who: TestOrg, selector: Record<string, string>) {
  const res = await fetch(`${api.baseUrl}/patients/export`, {
    method: "POST",
    headers: { ...bearer(who), "content-type": "application/json" },
    body: JSON.stringify(selector),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

async function openExport(zip: Buffer) {
  const entries = await readZip(zip);
  const manifest = JSON.parse(entries.get("manifest.json")!.toString("utf8")) as AccessExportManifest;
  return { entries, manifest };
}

let patient: Seeded;
let neighbour: Seeded;
let foreign: Seeded;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: new URL(files.origin).host });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  patient = await seedPatient(org, "P-1", "R-1", "Erika Mustermann");
  neighbour = await seedPatient(org, "P-2", "R-2", "Max Nachbar");
  // The same identifiers at another organization: never part of Klinik Nord's export.
  foreign = await seedPatient(other, "P-1", "R-1", "Erika Fremd");
}, 300_000);

afterAll(async () => {
  await api?.close();
  await files?.close();
});

describe("patient access export (POST /patients/export)", () => {
  it("streams one ZIP: every file listed in the manifest with its SHA-256, sealed PDFs that still verify", async () => {
    const res = await exportZip(org, { patient_id: "P-1", rnummer: "R-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="patient-export-\d{4}-\d{2}-\d{2}\.zip"$/,
    );
    const { entries, manifest } = await openExport(res.body);

    // The manifest lists every entry but itself, with the bytes' size and SHA-256, and nothing else.
    const listed = new Map(manifest.files.map((f) => [f.path, f]));
    expect([...entries.keys()].filter((p) => p !== "manifest.json").sort()).toEqual([...listed.keys()].sort());
    for (const [path, bytes] of entries) {
      if (path === "manifest.json") continue;
      expect(listed.get(path)!.sha256, path).toBe(sha256(bytes));
      expect(listed.get(path)!.size, path).toBe(bytes.length);
    }
    expect(manifest).toMatchObject({
      schemaVersion: 1,
      organization: { id: org.orgId, name: "Klinik Nord" },
      selector: { patientId: "P-1", rnummer: "R-1" },
    });

    // The sealed PDF byte for byte, and it still verifies as this service's intact seal.
    const pdfs = [...entries.keys()].filter((p) => /^documents\/[^/]+\.pdf$/.test(p));
    expect(pdfs).toEqual([`documents/${patient.signatureId}.pdf`]);
    expect(entries.get(pdfs[0]!)!.equals(patient.sealedPdf)).toBe(true);
    for (const path of pdfs) {
      const verdict = await verifySealedPdf(api.services, { pdf: entries.get(path)! });
      expect(verdict, path).toMatchObject({ status: "sealed", intact: true, sealedByThisService: true });
    }
    expect(entries.has(`documents/${patient.signatureId}.metadata.json`)).toBe(true);
    expect(entries.has(`signatures/${patient.signatureId}.png`)).toBe(true);

    // Every attachment, byte for byte, under a safe name; the upload's own name in the manifest.
    const attachments = manifest.files.filter((f) => f.kind === "upload");
    expect(attachments.map((f) => entries.get(f.path)!.toString()).sort()).toEqual(
      patient.attachments.map((b) => b.toString()).sort(),
    );
    for (const f of attachments) expect(f.path).toMatch(/^attachments\/[0-9a-f-]{36}-Befund_\d_Muller\.pdf$/);
    expect(attachments.map((f) => f.name).sort()).toEqual(["Befund 1 Müller.pdf", "Befund 2 Müller.pdf"]);

    // Records with their values as stored, and FHIR resources pointing into the ZIP.
    const submissions = manifest.records.filter((r) => r.kind === "submissions");
    expect(submissions.map((r) => r.id).sort()).toEqual([...patient.submissionIds].sort());
    for (const record of submissions) {
      expect(record.data).toMatchObject({ rnummer: "R-1", values: { name: "Erika Mustermann" } });
      const fhir = record.fhir as { resourceType: string; item: { answer: { valueAttachment?: { url: string } }[] }[] };
      expect(fhir.resourceType).toBe("QuestionnaireResponse");
      const url = fhir.item.flatMap((i) => i.answer).find((a) => a.valueAttachment)!.valueAttachment!.url;
      expect(record.files).toContain(url);
      expect(listed.has(url)).toBe(true);
    }
    const request = manifest.records.find((r) => r.kind === "signatureRequests")!;
    expect(request.id).toBe(patient.signatureId);
    expect(request.data).toMatchObject({ patientId: "P-1", status: "completed" });
    expect(request.data).not.toHaveProperty("tokenHash");
    expect(request.data).not.toHaveProperty("tokenEnc");
    const reference = request.fhir as { resourceType: string; content: { attachment: Record<string, unknown> }[] };
    expect(reference.resourceType).toBe("DocumentReference");
    expect(reference.content[0]!.attachment).toMatchObject({
      url: `documents/${patient.signatureId}.pdf`,
      size: patient.sealedPdf.length,
      hash: createHash("sha1").update(patient.sealedPdf).digest("base64"),
    });
    expect(reference.content[1]!.attachment.url).toBe(`documents/${patient.signatureId}.metadata.json`);
    expect(manifest.records.some((r) => r.kind === "drafts" && (r.data.values as { name?: string }).name)).toBe(true);
    const session = manifest.records.find((r) => r.kind === "embedSessions")!;
    expect(session.data).not.toHaveProperty("tokenHash");
    const audit = manifest.records.filter((r) => r.kind === "auditEntries");
    expect(audit.length).toBeGreaterThan(0);
    for (const entry of audit) expect(entry.data).not.toHaveProperty("personalSalt");

    // The index page: both languages, no script, typed values escaped.
    const html = entries.get("index.html")!.toString("utf8");
    expect(html).toContain("Auskunft über Ihre gespeicherten Daten");
    expect(html).toContain("Copy of your stored data");
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain("Erika Mustermann");
    for (const f of manifest.files.filter((f) => f.path !== "index.html"))
      expect(html).toContain(`href="${f.path.split("/").map(encodeURIComponent).join("/")}"`);
  });

  it("holds nothing of another patient, nor of the same identifiers at another organization", async () => {
    const { entries, manifest } = await openExport((await exportZip(org, { patient_id: "P-1", rnummer: "R-1" })).body);
    const everything = [...entries.values()].map((b) => b.toString("latin1")).join("\n");
    for (const value of ["Max Nachbar", "R-2", "P-2", neighbour.signatureId, ...neighbour.submissionIds])
      expect(everything, value).not.toContain(value);
    for (const value of ["Erika Fremd", foreign.signatureId, ...foreign.submissionIds, other.orgId])
      expect(everything, value).not.toContain(value);
    expect(manifest.records.every((r) => !("organizationId" in r.data))).toBe(true);

    // The other organization's export of the same identifiers is its own patient's alone.
    const theirs = await openExport((await exportZip(other, { patient_id: "P-1", rnummer: "R-1" })).body);
    expect(
      theirs.manifest.records
        .filter((r) => r.kind === "submissions")
        .map((r) => r.id)
        .sort(),
    ).toEqual([...foreign.submissionIds].sort());
    const theirText = [...theirs.entries.values()].map((b) => b.toString("latin1")).join("\n");
    expect(theirText).not.toContain("Erika Mustermann");
    expect(theirText).not.toContain(patient.signatureId);
  });

  it("answers a patient of whom nothing is held with a ZIP whose manifest is empty", async () => {
    const res = await exportZip(org, { patient_id: "nobody-here" });
    expect(res.status).toBe(200);
    const { entries, manifest } = await openExport(res.body);
    expect([...entries.keys()].sort()).toEqual(["index.html", "manifest.json"]);
    expect(manifest.records).toEqual([]);
    expect(manifest.files.map((f) => f.path)).toEqual(["index.html"]);
    expect(manifest.counts).toMatchObject({ submissions: 0, signatureRequests: 0, files: 0, bytes: 0 });
    expect(entries.get("index.html")!.toString()).toContain("No data is held about this person.");
  });

  it("refuses an empty selector (400) and a missing or foreign token (401), before any byte", async () => {
    const empty = await exportZip(org, {});
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body.toString()).error.code).toBe("invalid_request");
    const badPhone = await exportZip(org, { phone: "0170 123" });
    expect(badPhone.status).toBe(400);
    const anonymous = await fetch(`${api.baseUrl}/patients/export`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ patient_id: "P-1" }),
    });
    expect(anonymous.status).toBe(401);
  });

  it("writes one audit entry per export: who and counts, no patient values", async () => {
    await exportZip(org, { rnummer: "R-2" });
    const entries = await org.ctx.scope.select(auditLog, eq(auditLog.action, "patient.exported"));
    const last = entries.sort((a, b) => a.seq - b.seq).at(-1)!;
    expect(last.actorType).toBe("api_key");
    expect(last.metadata).toMatchObject({
      selectorFields: ["rnummer"],
      counts: { submissions: 2, files: 2 },
    });
    const text = JSON.stringify(last.metadata);
    for (const value of ["R-2", "Max Nachbar", ...neighbour.submissionIds]) expect(text).not.toContain(value);
  });
});

describe("staff download (POST /staff/patients/export)", () => {
  const post = (cookie: string, form: Record<string, string>) =>
    fetch(`${api.baseUrl}/staff/patients/export`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
      body: new URLSearchParams(form).toString(),
    });

  it("gives owners the ZIP from a plain form post, and refuses the staff role (403)", async () => {
    const owner = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const res = await post(owner, { patientId: "P-1", rnummer: "", phone: "" });
    expect(res.status).toBe(200);
    const { manifest } = await openExport(Buffer.from(await res.arrayBuffer()));
    expect(manifest.selector).toEqual({ patientId: "P-1" });
    expect(manifest.records.find((r) => r.kind === "signatureRequests")?.id).toBe(patient.signatureId);

    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "staff-export@example.org",
      password: "correct horse battery",
      role: "staff",
    });
    const staff = await logInCookie(api, "staff-export@example.org", "correct horse battery");
    const refused = await post(staff, { patientId: "P-1" });
    expect(refused.status).toBe(403);
  });
});
