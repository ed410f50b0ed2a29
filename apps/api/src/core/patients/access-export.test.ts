import { createHash } from "node:crypto";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patientLanguages, type FormField } from "@clinsign/contracts";
import { auditLog, eq, signatureSigners } from "@clinsign/db";
import { verifySealedPdf } from "../public/verify-sealed-pdf";
import { activeTemplate, creds, newSession } from "../../testing/forms";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  bearer,
  inOneHour,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  signAndSeal,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { readZip } from "../../testing/zip";
import type { AccessExportManifest } from "./access-export-manifest";
import { exportTextKeys, exportTexts } from "./access-export-texts";
import { findPatientRecords, patientRecordKinds } from "./patient-records";
import { createStaffUser } from "../identity/store/accounts";
import { publicContext } from "../identity/public-context";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
/** Whoever holds a file and asks /verify about it. */
const anyone = () => publicContext(api.services, { requestId: "verify-test", ip: null, userAgent: null });

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

/** What a reader sees of a page: its text without tags, styles or attributes, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, " ")
    .replace(/<\/?(?:bdi|time|a)\b[^>]*>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A moment as the page writes it: long date, short time, the clinic's zone. */
const when = (at: string | Date, locale: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short", timeZone: "Europe/Berlin" }).format(
    new Date(at),
  );

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
      schemaVersion: 2,
      organization: { id: org.orgId, name: "Klinik Nord" },
      selector: { patientId: "P-1", rnummer: "R-1" },
    });

    // The sealed PDF byte for byte, and it still verifies as this service's intact seal.
    const pdfs = [...entries.keys()].filter((p) => /^documents\/[^/]+\.pdf$/.test(p));
    expect(pdfs).toEqual([`documents/${patient.signatureId}.pdf`]);
    expect(entries.get(pdfs[0]!)!.equals(patient.sealedPdf)).toBe(true);
    for (const path of pdfs) {
      const verdict = await verifySealedPdf(anyone(), { pdf: entries.get(path)! });
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
    const embedSessionRecords = manifest.records.find((r) => r.kind === "embedSessions")!;
    expect(embedSessionRecords.data).not.toHaveProperty("tokenHash");
    const audit = manifest.records.filter((r) => r.kind === "auditEntries");
    expect(audit.length).toBeGreaterThan(0);
    for (const entry of audit) expect(entry.data).not.toHaveProperty("personalSalt");

    // Every submission as a PDF (the staff download's renderer): a real PDF of at least one page.
    const submissionPdfs = manifest.files.filter((f) => f.kind === "submission_pdf");
    expect(submissionPdfs.map((f) => f.path).sort()).toEqual(
      patient.submissionIds.map((id) => `forms/${id}.pdf`).sort(),
    );
    for (const file of submissionPdfs) {
      const bytes = entries.get(file.path)!;
      expect(bytes.subarray(0, 5).toString("latin1"), file.path).toBe("%PDF-");
      expect((await PDFDocument.load(bytes)).getPageCount(), file.path).toBeGreaterThanOrEqual(1);
      expect(manifest.records.find((r) => r.id === file.record!.id)!.files).toContain(file.path);
    }

    // The index page: the organization's language by default (nothing the patient did names one), no
    // script, a link to every file but itself.
    const html = entries.get("index.html")!.toString("utf8");
    expect(manifest.language).toBe("de");
    expect(html).toContain('<html lang="de" dir="ltr">');
    expect(html).toContain("Ihre Daten bei <bdi>Klinik Nord</bdi>");
    expect(html).not.toMatch(/<script/i);
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
    expect(entries.get("index.html")!.toString()).toContain(
      "<bdi>Klinik Nord</bdi> hat in diesem Dienst keine Daten über Sie gespeichert.",
    );
    const english = await openExport((await exportZip(org, { patient_id: "nobody-here", language: "en" })).body);
    expect(english.entries.get("index.html")!.toString()).toContain(
      "<bdi>Klinik Nord</bdi> holds no data about you in this service.",
    );
  });

  it("refuses an empty selector (400) and a missing or foreign token (401), before any byte", async () => {
    const empty = await exportZip(org, {});
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.body.toString()).error.code).toBe("invalid_request");
    const badPhone = await exportZip(org, { phone: "0170 123" });
    expect(badPhone.status).toBe(400);
    const badLanguage = await exportZip(org, { patient_id: "P-1", language: "fr" });
    expect(badLanguage.status).toBe(400);
    expect(JSON.parse(badLanguage.body.toString()).error.message).toContain("de, en, tr, ar, ru, uk, pl");
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
    const res = await post(owner, { patientId: "P-1", rnummer: "", phone: "", language: "ar" });
    expect(res.status).toBe(200);
    const { manifest, entries } = await openExport(Buffer.from(await res.arrayBuffer()));
    expect(manifest.selector).toEqual({ patientId: "P-1" });
    expect(manifest.language).toBe("ar");
    expect(entries.get("index.html")!.toString()).toContain('<html lang="ar" dir="rtl">');
    expect(manifest.records.find((r) => r.kind === "signatureRequests")?.id).toBe(patient.signatureId);
    const badLanguage = await post(owner, { patientId: "P-1", language: "xx" });
    expect(badLanguage.status).toBe(400);

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

describe("the overview page (index.html) a patient reads", () => {
  const overview = async (
    language: string,
    selector: Record<string, string> = { patient_id: "P-1", rnummer: "R-1" },
  ) => {
    const zip = (await exportZip(org, { ...selector, language })).body;
    const { entries, manifest } = await openExport(zip);
    return { html: entries.get("index.html")!.toString("utf8"), manifest, entries };
  };

  it("names the clinic, the date, each form and document in words with links to their PDFs; no id or raw value visible", async () => {
    const { html, manifest } = await overview("en");
    expect(manifest.language).toBe("en");
    expect(html).toContain('<html lang="en" dir="ltr">');
    const text = visibleText(html);
    expect(text).toContain("Your data at Klinik Nord");
    expect(text).toContain(`Clinic Klinik Nord Copy made on ${when(manifest.generatedAt, "en-GB")}`);
    expect(text).toContain("Found by Patient number: P-1 Case number: R-1");

    const submissions = manifest.records.filter((r) => r.kind === "submissions");
    expect(submissions).toHaveLength(2);
    for (const s of submissions) {
      expect(text).toContain(`Form “Aufnahme R-1” Sent on ${when(s.createdAt!, "en-GB")}.`);
      expect(html).toContain(`<a href="forms/${s.id}.pdf">Your answers (PDF)</a>`);
    }
    expect(text).toMatch(/Sent on \d{1,2} [A-Z][a-z]+ 20\d\d at \d\d:\d\d\./);
    expect(html).toMatch(
      /<a href="attachments\/[0-9a-f-]{36}-Befund_1_Muller\.pdf"><bdi>Befund 1 Müller\.pdf<\/bdi><\/a>/,
    );

    const request = manifest.records.find((r) => r.kind === "signatureRequests")!;
    expect(text).toContain(`Document “Einwilligung” Signed by you on ${when(String(request.data.signedAt), "en-GB")}.`);
    expect(text).toContain("Your signature: drawn on the screen.");
    expect(html).toContain(`<a href="documents/${patient.signatureId}.pdf">Signed document (PDF)</a>`);
    expect(html).toContain(`<a href="signatures/${patient.signatureId}.png">Your signature (image)</a>`);
    expect(html).toContain(
      `<a href="documents/${patient.signatureId}.metadata.json">Signature details (technical, JSON)</a>`,
    );

    // The draft, the personal link, the log: said in words; the rest is the technical data.
    expect(text).toContain("Forms you started but did not send Form “Aufnahme R-1” Last saved on");
    expect(text).toContain("Personal link to the form “Aufnahme R-1” Created on");
    expect(text).toMatch(/Entries in the service's log: \d+/);
    expect(html).toContain('<a href="manifest.json">Technical data (manifest.json)</a>');

    expect(text).not.toMatch(UUID);
    expect(text).not.toMatch(/[{}[\]]|":/);
    expect(text).not.toContain("Erika Mustermann");
  });

  it.each([
    [
      "de",
      "de-DE",
      "ltr",
      "Ihre Daten bei Klinik Nord",
      "Formular „Aufnahme R-1“ Gesendet am {date}.",
      "Ihre Antworten (PDF)",
    ],
    [
      "tr",
      "tr-TR",
      "ltr",
      "Klinik Nord tarafından saklanan verileriniz",
      "“Aufnahme R-1” formu {date} tarihinde gönderildi.",
      "Yanıtlarınız (PDF)",
    ],
    [
      "ar",
      "ar-u-nu-latn",
      "rtl",
      "بياناتك لدى Klinik Nord",
      "النموذج «Aufnahme R-1» أُرسل بتاريخ {date}.",
      "إجاباتك (PDF)",
    ],
  ])("in %s", async (language, locale, dir, heading, sentence, pdfLink) => {
    const { html, manifest } = await overview(language);
    expect(html).toContain(`<html lang="${language}" dir="${dir}">`);
    const text = visibleText(html);
    expect(text).toContain(heading);
    for (const s of manifest.records.filter((r) => r.kind === "submissions")) {
      expect(text).toContain(sentence.replace("{date}", when(s.createdAt!, locale)));
      expect(html).toContain(`<a href="forms/${s.id}.pdf">${pdfLink}</a>`);
    }
    expect(text).not.toMatch(UUID);
  });

  it("is written in every one of the seven languages, each text complete with the same placeholders", async () => {
    for (const language of patientLanguages) {
      const english = exportTexts.en;
      for (const key of exportTextKeys) {
        const own = exportTexts[language][key];
        expect(own, `${language} ${key}`).toBeTruthy();
        const placeholders = (t: string) => [...t.matchAll(/\{\w+\}/g)].map((m) => m[0]).sort();
        expect(placeholders(own!), `${language} ${key}`).toEqual(placeholders(english[key]!));
      }
      const { html } = await overview(language, { patient_id: "nobody-here" });
      expect(html).toContain(`<html lang="${language}" dir="${language === "ar" ? "rtl" : "ltr"}">`);
      expect(html).toContain(exportTexts[language].nothing!.replace("{clinic}", "<bdi>Klinik Nord</bdi>"));
    }
  });

  it("escapes what was typed: a form title with markup and a typed signature name stay text", async () => {
    const title = `Aufnahme <img src=x onerror=alert(1)> & "Co"`;
    const template = await activeTemplate(org, [{ id: "1", type: "text", key: "name", label: "Name" }], title);
    const submitted = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(org), templateIdentifier: template.identifier, rnummer: "R-X", values: { name: "<b>x</b>" } },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const request = await requestSignature(api, org, await registerDocument(api, files, org), "P-X");
    const signing = api.trpc({}).signing;
    const view = await signing.open.mutate({ token: request.token });
    await signing.sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: { kind: "typed", name: `<b>Eve</b> "E"` },
    });

    const { html, entries, manifest } = await overview("en", { patient_id: "P-X", rnummer: "R-X" });
    expect(html).toContain(`Form “<bdi>Aufnahme &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Co&quot;</bdi>”`);
    expect(html).toContain(`Your signature: the typed name “<bdi>&lt;b&gt;Eve&lt;/b&gt; &quot;E&quot;</bdi>”.`);
    expect(html).not.toMatch(/<img|<b>|<script/i);
    // The submission's PDF is there however its title reads.
    const pdf = manifest.files.find((f) => f.kind === "submission_pdf")!;
    expect((await PDFDocument.load(entries.get(pdf.path)!)).getPageCount()).toBeGreaterThanOrEqual(1);
  });
});

describe("several signers", () => {
  it("holds the patient's own signer record and drawn signature, not the co-signer's; nothing the finder found is left out", async () => {
    const documentId = await registerDocument(api, files, org, {
      name: "Einwilligung Narkose",
      fields: [
        { page: 1, x: 40, y: 600, width: 200, height: 60 },
        { page: 1, x: 300, y: 600, width: 200, height: 60, role: "legal_representative" },
      ],
    });
    const created = await api.request("POST", "/signature-requests", {
      headers: bearer(org),
      body: {
        patient_id: "P-TWO",
        document_id: documentId,
        institution_id: "clinic-a",
        expiration_date: inOneHour(),
        order_by: "dr.house",
        signers: [{ role: "legal_representative", name: "Maria Muster" }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.signature_id as string;
    const linkOf = (role: string) =>
      (created.body.signers as { role: string; signing_link: string }[]).find((s) => s.role === role)!.signing_link;
    const signingPage = api.trpc({}).signing;
    const sign = async (link: string, language?: "tr", png = makeSignaturePng()) => {
      const view = await signingPage.open.mutate({ token: link.slice(link.lastIndexOf("/") + 1) });
      return signingPage.sign.mutate({
        sessionToken: view.sessionToken!,
        consent: true,
        signature: { kind: "drawn", dataUrl: pngDataUrl(png) },
        ...(language && { language }),
      });
    };
    expect(await sign(linkOf("patient"), "tr")).toEqual({ state: "signed" });
    expect(await sign(linkOf("legal_representative"), undefined, makeSignaturePng(320, 90))).toEqual({
      state: "completed",
    });
    const rows = await api.services.db
      .select()
      .from(signatureSigners)
      .where(eq(signatureSigners.signatureRequestId, id));
    const mine = rows.find((r) => r.role === "patient")!;
    const theirs = rows.find((r) => r.role === "legal_representative")!;

    // The finder: both drawn signatures are stored objects of the request (erasure removes them with
    // it); only the patient's own row is the patient's.
    const found = await findPatientRecords(org.ctx, { patientId: "P-TWO" });
    expect(found.patientSigners).toEqual([mine.id]);
    expect(found.objects.map((o) => o.key)).toEqual(
      expect.arrayContaining([mine.signatureImageKey, theirs.signatureImageKey]),
    );

    // No language chosen: the patient's own (they signed in Turkish).
    const twoZip = (await exportZip(org, { patient_id: "P-TWO" })).body;
    const { entries, manifest } = await openExport(twoZip);
    expect(manifest.language).toBe("tr");
    const signerRecords = manifest.records.filter((r) => r.kind === "signatureSigners");
    expect(signerRecords.map((r) => r.id)).toEqual([mine.id]);
    expect(signerRecords[0]!.data).toMatchObject({
      signatureRequestId: id,
      role: "patient",
      kind: "patient",
      status: "signed",
      signatureMethod: "drawn",
      signingLanguage: "tr",
      signedAt: mine.signedAt!.toISOString(),
    });
    expect(signerRecords[0]!.data).not.toHaveProperty("tokenHash");
    const imagePath = `signatures/${id}-${mine.id}.png`;
    expect(signerRecords[0]!.files).toEqual([imagePath]);
    expect(entries.get(imagePath)!.equals((await api.services.storage.get(mine.signatureImageKey!))!)).toBe(true);
    const theirImage = (await api.services.storage.get(theirs.signatureImageKey!))!;
    expect([...entries.values()].some((bytes) => bytes.equals(theirImage))).toBe(false);
    expect(manifest.records.map((r) => r.id)).not.toContain(theirs.id);
    const sealed = await verifySealedPdf(anyone(), { pdf: entries.get(`documents/${id}.pdf`)! });
    expect(sealed).toMatchObject({ status: "sealed", intact: true });

    // Nothing the finder found is left out: every record (the job queue aside) and every stored
    // object but the co-signer's signature.
    for (const kind of patientRecordKinds)
      if (kind !== "jobs")
        expect(
          manifest.records
            .filter((r) => r.kind === kind)
            .map((r) => r.id)
            .sort(),
          kind,
        ).toEqual([...found.ids[kind]].sort());
    const stored = manifest.files.filter((f) => f.kind !== "index" && f.kind !== "submission_pdf");
    expect(stored).toHaveLength(found.objects.length - 1);

    // The overview in Turkish: signed by the patient, as patient, drawn; their own image linked.
    const html = entries.get("index.html")!.toString("utf8");
    expect(html).toContain('<html lang="tr" dir="ltr">');
    const text = visibleText(html);
    expect(text).toContain(
      `“Einwilligung Narkose” belgesi ${when(mine.signedAt!, "tr-TR")} tarihinde sizin tarafınızdan imzalandı.`,
    );
    expect(text).toContain("İmzanız: ekranda çizildi. İmza sıfatınız: hasta.");
    expect(html).toContain(`<a href="${imagePath}">İmzanız (görsel)</a>`);
    expect(html).toContain(`<a href="documents/${id}.pdf">İmzalı belge (PDF)</a>`);
    expect(text).not.toMatch(UUID);
    expect(text).not.toContain("Maria Muster");
  });

  it("the console preselects the patient's language where their records name one, else the organization's", async () => {
    const owner = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const patients = api.trpc({ cookie: owner }).patients;
    expect(await patients.exportLanguage.query({ patientId: "P-TWO" })).toEqual({ language: "tr", basis: "patient" });
    expect(await patients.exportLanguage.query({ patientId: "nobody-here" })).toEqual({
      language: "de",
      basis: "organization",
    });
  });
});
