import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { auditLog, documentVersions, eq, signatureRequests } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { pdfText } from "../../testing/pdf-text";
import {
  bearer,
  inOneHour,
  makeSignaturePng,
  pngDataUrl,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";
import { documentForLanguage } from "./request-read";

/**
 * Issue 19: a request carries one document per language; the signing page's language picks the
 * one pinned at the first open, and everything after reads that document.
 */

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let staff: ReturnType<TestApi["trpc"]>;
let tokenClient: ReturnType<TestApi["trpc"]>;

const FIELD = { page: 1, x: 60, y: 650, width: 240, height: 80 };

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, PUBLIC_API_URL: "https://api.test" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
  tokenClient = api.trpc({ bearer: org.token });
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const signing = () => api.trpc({}).signing;

/** A one-page PDF whose text names it, so the sealed copy shows which one was signed. */
async function labelledPdf(label: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([595.28, 841.89]).drawText(label, { x: 40, y: 780, size: 14, font });
  return Buffer.from(await doc.save());
}

/** A6 with the additive `language`; returns the document id and its PDF's SHA-256. */
async function document(o: TestOrg, name: string, language?: string, fields: unknown = FIELD) {
  // ASCII labels (the standard font's); a random part so every PDF is its own.
  const pdf = await labelledPdf(`${language ?? "no-language"} consent ${Math.random().toString(36).slice(2)}`);
  const path = `/doc-${Math.random().toString(36).slice(2)}.pdf`;
  files.set(path, pdf);
  const res = await api.request("POST", "/documents", {
    headers: bearer(o),
    body: {
      document_name: name,
      document_description: "Aufklärung",
      signingfield_koordinates: fields,
      document_bloburl: `${files.origin}${path}`,
      ...(language && { language }),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.document_id as string, sha256: sha256Hex(pdf) };
}

const a1 = (o: TestOrg, body: Record<string, unknown>) =>
  api.request("POST", "/signature-requests", {
    headers: bearer(o),
    body: {
      patient_id: "P-lang",
      institution_id: "clinic-a",
      expiration_date: inOneHour(),
      order_by: "dr.house",
      ...body,
    },
  });

async function request(o: TestOrg, body: Record<string, unknown>) {
  const res = await a1(o, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const link = res.body.signing_link as string;
  return { id: res.body.signature_id as string, token: link.slice(link.lastIndexOf("/") + 1) };
}

const rowOf = async (id: string) =>
  (await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id)))[0]!;

/** German main document with Turkish and Arabic ones. */
async function threeLanguages() {
  const de = await document(org, "Einwilligung Narkose", "de");
  const tr = await document(org, "Anestezi onamı", "tr");
  const ar = await document(org, "موافقة التخدير", "ar");
  return { de, tr, ar };
}

describe("documents in the patient's language", () => {
  it("opened in Turkish pins and seals the Turkish document; a later open in German keeps it", async () => {
    const { de, tr, ar } = await threeLanguages();
    const req = await request(org, { document_id: de.id, documents_by_language: { tr: tr.id, ar: ar.id } });
    expect(await rowOf(req.id)).toMatchObject({
      documentId: de.id,
      pinnedDocumentId: null,
      documentsByLanguage: { tr: tr.id, ar: ar.id },
    });

    const view = await signing().open.mutate({ token: req.token, language: "tr" });
    expect(view).toMatchObject({ state: "ready", documentTitle: "Anestezi onamı", fields: [FIELD] });
    expect(await rowOf(req.id)).toMatchObject({ status: "opened", documentId: de.id, pinnedDocumentId: tr.id });
    const pdf = await signing().document.query({ sessionToken: view.sessionToken! });
    expect(pdf.sha256).toBe(tr.sha256);

    // The patient switches the page to German: the pinned Turkish document stays.
    const again = await signing().open.mutate({ token: req.token, language: "de" });
    expect(again.documentTitle).toBe("Anestezi onamı");
    expect((await rowOf(req.id)).pinnedDocumentId).toBe(tr.id);

    // A2 shows what the patient sees.
    const open = await api.request("GET", "/signature-requests?patient_id=P-lang", { headers: bearer(org) });
    expect(open.body.find((l: { signing_link: string }) => l.signing_link.endsWith(req.token))).toMatchObject({
      document_id: tr.id,
      document_title: "Anestezi onamı",
      status: "opened",
    });

    const signed = await signing().sign.mutate({
      sessionToken: again.sessionToken!,
      consent: true,
      signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
      language: "tr",
    });
    expect(signed.state).toBe("completed");
    const row = await rowOf(req.id);
    expect(row.originalSha256).toBe(tr.sha256);

    const sealed = await fetch(`${api.baseUrl}/signature-requests/${req.id}/signed.pdf`, { headers: bearer(org) });
    expect(sealed.status).toBe(200);
    const sealedBytes = new Uint8Array(await sealed.arrayBuffer());
    expect(sha256Hex(Buffer.from(sealedBytes))).toBe(row.signedPdfSha256);
    const text = (await pdfText(sealedBytes)).replace(/\s+/g, " ");
    expect(text).toContain("tr consent");
    expect(text).not.toContain("de consent");
    // The audit page (in the patient's Turkish) names the document's language.
    expect(text).toContain("Belgenin dili");
    expect(text).toContain("Türkçe (tr)");

    const metadata = (await (
      await fetch(`${api.baseUrl}/signature-requests/${req.id}/metadata.json`, { headers: bearer(org) })
    ).json()) as { document: unknown; sha256: { original: string } };
    expect(metadata.document).toMatchObject({
      id: tr.id,
      title: "Anestezi onamı",
      language: "tr",
      requested_document_id: de.id,
    });
    expect(metadata.sha256.original).toBe(tr.sha256);

    // Staff see which document and language the patient got.
    const detail = await staff.signatures.detail.query({ id: req.id });
    expect(detail).toMatchObject({
      documentId: tr.id,
      requestedDocumentId: de.id,
      documentName: "Anestezi onamı",
      documentLanguage: "tr",
      documentsByLanguage: [
        { language: "main", documentId: de.id, documentName: "Einwilligung Narkose" },
        { language: "tr", documentId: tr.id, documentName: "Anestezi onamı" },
        { language: "ar", documentId: ar.id, documentName: "موافقة التخدير" },
      ],
    });
    const opened = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.opened"));
    expect(opened.find((e) => e.metadata.signatureId === req.id)?.metadata).toMatchObject({
      documentId: tr.id,
      language: "tr",
      requestedDocumentId: de.id,
    });

    // The Turkish document is attached now: A9 refuses to delete it, as it refuses the main one.
    const deleted = await api.request("DELETE", `/documents/${tr.id}`, { headers: bearer(org) });
    expect(deleted.body).toMatchObject({ deleted: false });
  });

  it("a language without its own document falls back to the main one; no language too", async () => {
    const { de, tr, ar } = await threeLanguages();
    const polish = await request(org, { document_id: de.id, documents_by_language: { tr: tr.id, ar: ar.id } });
    const view = await signing().open.mutate({ token: polish.token, language: "pl" });
    expect(view.documentTitle).toBe("Einwilligung Narkose");
    expect(await rowOf(polish.id)).toMatchObject({ pinnedDocumentId: de.id, pinnedVersion: 1 });
    expect((await signing().document.query({ sessionToken: view.sessionToken! })).sha256).toBe(de.sha256);

    const none = await request(org, { document_id: de.id, documents_by_language: { tr: tr.id } });
    expect((await signing().open.mutate({ token: none.token })).documentTitle).toBe("Einwilligung Narkose");
  });

  it("pins the newest version of the chosen document (A8 before the first open)", async () => {
    const { de, tr } = await threeLanguages();
    const req = await request(org, { document_id: de.id, documents_by_language: { tr: tr.id } });
    const a8 = await api.request("PUT", `/documents/${tr.id}`, {
      headers: bearer(org),
      body: { title: "Anestezi onamı v2" },
    });
    expect(a8.status).toBe(200);
    const view = await signing().open.mutate({ token: req.token, language: "tr" });
    expect(view.documentTitle).toBe("Anestezi onamı v2");
    expect(await rowOf(req.id)).toMatchObject({ pinnedDocumentId: tr.id, pinnedVersion: 2 });
  });

  it("documentForLanguage: the pin wins; before it, the language's document, else the main one", () => {
    const row = {
      documentId: "main",
      pinnedDocumentId: null,
      pinnedVersion: null,
      documentsByLanguage: { tr: "tr-doc" },
    };
    expect(documentForLanguage(row, "tr")).toBe("tr-doc");
    expect(documentForLanguage(row, "pl")).toBe("main");
    expect(documentForLanguage(row, null)).toBe("main");
    expect(documentForLanguage({ ...row, documentsByLanguage: null }, "tr")).toBe("main");
    expect(documentForLanguage({ ...row, pinnedVersion: 1, pinnedDocumentId: "tr-doc" }, "de")).toBe("tr-doc");
    // Pinned before migration 0033: the main document.
    expect(documentForLanguage({ ...row, pinnedVersion: 1 }, "tr")).toBe("main");
  });

  it("refuses several signers with a clear 400", async () => {
    const de = await document(org, "Einwilligung Kind", "de", [
      FIELD,
      { page: 1, x: 300, y: 650, width: 200, height: 60, role: "legal_representative" },
    ]);
    const tr = await document(org, "Çocuk onamı", "tr");
    const res = await a1(org, {
      document_id: de.id,
      signers: [{ role: "legal_representative", name: "Maria Muster", phone: "+491705555555" }],
      documents_by_language: { tr: tr.id },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: "invalid_request",
      details: { field: "documents_by_language", reason: "several_signers" },
    });
    expect(res.body.error.message).toMatch(/only for requests the patient signs alone/);

    // A language document with fields for other signers is refused too.
    const plain = await document(org, "Einwilligung", "de");
    const res2 = await a1(org, { document_id: plain.id, documents_by_language: { tr: de.id } });
    expect(res2.status).toBe(400);
    expect(res2.body.error.details).toMatchObject({ field: "documents_by_language.tr", reason: "several_signers" });
  });

  it("another organization's document, an unknown id or language, an inactive document: refused without leaking", async () => {
    const { de } = await threeLanguages();
    const foreign = await document(other, "Fremd", "tr");
    const before = (await api.services.db.select().from(signatureRequests)).length;
    const res = await a1(org, { document_id: de.id, documents_by_language: { tr: foreign.id } });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: "not_found", details: { field: "documents_by_language.tr" } });
    expect(JSON.stringify(res.body)).not.toContain("Fremd");
    // An id nobody has answers exactly alike.
    const unknown = await a1(org, {
      document_id: de.id,
      documents_by_language: { tr: "00000000-0000-4000-8000-000000000000" },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(res.body.error.message);

    const badLanguage = await a1(org, { document_id: de.id, documents_by_language: { xx: de.id } });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.body.error.message).toMatch(/unknown language xx/);
    const notObject = await a1(org, { document_id: de.id, documents_by_language: "tr" });
    expect(notObject.status).toBe(400);
    expect(notObject.body.error.details.field).toBe("documents_by_language");

    const draft = await document(org, "Entwurf", "tr");
    await api.request("PATCH", `/documents/${draft.id}/availability`, {
      headers: bearer(org),
      body: { availability: "draft" },
    });
    const inactive = await a1(org, { document_id: de.id, documents_by_language: { tr: draft.id } });
    expect(inactive.status).toBe(409);
    expect(inactive.body.error.details).toMatchObject({
      field: "documents_by_language.tr",
      reason: "document_not_active",
    });
    // Nothing was created by any refused call.
    expect((await api.services.db.select().from(signatureRequests)).length).toBe(before);
  });

  it("A1 without the new field behaves as before: the main document, pinned at open", async () => {
    const de = await document(org, "Einwilligung ohne Sprachen");
    const res = await a1(org, { document_id: de.id });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["expiration_date", "signature_id", "signing_link"]);
    const id = res.body.signature_id as string;
    expect(await rowOf(id)).toMatchObject({ documentsByLanguage: null, pinnedDocumentId: null });
    const token = (res.body.signing_link as string).split("/").pop()!;
    const view = await signing().open.mutate({ token, language: "tr" });
    expect(view.documentTitle).toBe("Einwilligung ohne Sprachen");
    expect(await rowOf(id)).toMatchObject({ status: "opened", documentId: de.id, pinnedDocumentId: de.id });
    const created = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.created"));
    expect(created.find((e) => e.metadata.signatureId === id)?.metadata).not.toHaveProperty("documentsByLanguage");
  });
});

describe("A6 and A8 name the document's language (REST door)", () => {
  it("stores, shows, changes and clears the language; refuses an unknown one with a 400", async () => {
    const doc = await document(org, "Onam", "tr");
    const version = async (v: number) =>
      (await api.services.db.select().from(documentVersions).where(eq(documentVersions.documentId, doc.id))).find(
        (row) => row.version === v,
      )!;
    expect((await version(1)).language).toBe("tr");
    expect(await tokenClient.documents.get.query({ id: doc.id })).toMatchObject({ language: "tr" });

    const toArabic = await api.request("PUT", `/documents/${doc.id}`, {
      headers: bearer(org),
      body: { document_id: doc.id, language: "ar" },
    });
    expect(toArabic.status).toBe(200);
    expect(toArabic.body).toEqual({ id: doc.id, modified: true });
    expect((await version(2)).language).toBe("ar");
    // A8 without `language` keeps it; null clears it.
    await api.request("PUT", `/documents/${doc.id}`, { headers: bearer(org), body: { title: "Onam 3" } });
    expect((await version(3)).language).toBe("ar");
    await api.request("PUT", `/documents/${doc.id}`, { headers: bearer(org), body: { language: null } });
    expect((await version(4)).language).toBeNull();

    const bad = await api.request("PUT", `/documents/${doc.id}`, { headers: bearer(org), body: { language: "xx" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field: "language" } });
    const badA6 = await api.request("POST", "/documents", {
      headers: bearer(org),
      body: {
        document_name: "X",
        signingfield_koordinates: FIELD,
        document_bloburl: `${files.origin}/nothing.pdf`,
        language: "klingon",
      },
    });
    expect(badA6.status).toBe(400);
    expect(badA6.body.error.details.field).toBe("language");

    // Without `language` A6 stores none, as before.
    const plain = await document(org, "Ohne Sprache");
    expect(await tokenClient.documents.get.query({ id: plain.id })).toMatchObject({ language: null });
  });
});
