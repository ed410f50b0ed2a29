import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { P12Signer } from "@signpdf/signer-p12";
import { SignPdf } from "@signpdf/signpdf";
import { SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef } from "pdf-lib";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificate, makeP12 } from "../../testing/certificates";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { makePdf, signAndSeal, startFileServer, type FileServer } from "../../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let sealed: { id: string; documentId: string; pdf: Buffer };

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Verify");
  sealed = await signAndSeal(api, files, org, "P-verify");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

async function verify(body: Uint8Array | string, contentType = "application/pdf", ip = "203.0.113.7") {
  const response = await fetch(`${api.baseUrl}/verify`, {
    method: "POST",
    body,
    headers: { "content-type": contentType, "x-forwarded-for": ip },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  return { status: response.status, body: (await response.json()) as any };
}

/** A PDF signed elsewhere: @signpdf with a certificate of another organization. */
async function foreignSignedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.load(await makePdf());
  pdflibAddPlaceholder({
    pdfDoc: doc,
    reason: "Approved",
    contactInfo: "x",
    name: "Elsewhere",
    location: "Somewhere",
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
  });
  const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
  const foreign = makeCertificate({ commonName: "Other Hospital Seal", organization: "Other Hospital" });
  return new SignPdf().sign(
    prepared,
    new P12Signer(Buffer.from(makeP12("pw", [foreign]), "base64"), { passphrase: "pw" }),
  );
}

/**
 * Appends an incremental update to `pdf`, as an editor's "save" would: the objects `build` returns
 * (new ones, or new versions of existing ones) and their own xref section.
 */
async function appendUpdate(
  pdf: Buffer,
  build: (doc: PDFDocument, next: () => number) => [number, string][],
): Promise<Buffer> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  let size = doc.context.largestObjectNumber + 1;
  const objects = build(doc, () => size++);
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.toString("latin1"))![1]);
  let body = "\n";
  const offsets: [number, number][] = [];
  for (const [num, text] of objects) {
    offsets.push([num, pdf.length + Buffer.byteLength(body, "latin1")]);
    body += `${num} 0 obj\n${text}\nendobj\n`;
  }
  const xrefAt = pdf.length + Buffer.byteLength(body, "latin1");
  body += "xref\n0 1\n0000000000 65535 f \n";
  for (const [num, offset] of offsets.sort((a, b) => a[0] - b[0]))
    body += `${num} 1\n${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${size} /Root ${doc.context.trailerInfo.Root!.toString()} /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(body, "latin1")]);
}

/** An update that adds a text annotation to page 1 (a new object and a new version of the page). */
const appendAnnotation = (pdf: Buffer) =>
  appendUpdate(pdf, (doc, next) => {
    const page = doc.getPage(0);
    const annot = next();
    const pageDict = page.node.clone() as PDFDict;
    const annots = page.node.lookupMaybe(PDFName.of("Annots"), PDFArray);
    const refs = annots ? Array.from({ length: annots.size() }, (_, i) => annots.get(i)) : [];
    pageDict.set(PDFName.of("Annots"), doc.context.obj([...refs, PDFRef.of(annot)]));
    return [
      [annot, "<< /Type /Annot /Subtype /Text /Rect [100 100 120 120] /Contents (added later) >>"],
      [page.ref.objectNumber, pageDict.toString()],
    ];
  });

/** An update that adds only a DSS (a certificate and an OCSP response as streams), as LTV tools do. */
const appendDss = (pdf: Buffer) =>
  appendUpdate(pdf, (doc, next) => {
    const [cert, ocsp, dss] = [next(), next(), next()];
    const catalog = doc.catalog.clone();
    catalog.set(PDFName.of("DSS"), PDFRef.of(dss));
    const der = Buffer.from(
      makeCertificate({ commonName: "Some CA", ca: true }).certificatePem.split("\n").slice(1, -2).join(""),
      "base64",
    ).toString("latin1");
    return [
      [cert, `<< /Length ${der.length} >>\nstream\n${der}\nendstream`],
      [ocsp, "<< /Length 4 >>\nstream\n0\u0003\n\u0001\nendstream"],
      [dss, `<< /Certs [${cert} 0 R] /OCSPs [${ocsp} 0 R] >>`],
      [(doc.context.trailerInfo.Root as PDFRef).objectNumber, catalog.toString()],
    ];
  });

describe("POST /verify", () => {
  it("confirms an untouched sealed PDF: this service, intact, signer, claimed time, B-B, and its request", async () => {
    const { status, body } = await verify(new Uint8Array(sealed.pdf));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "sealed",
      sealedByThisService: true,
      intact: true,
      modifiedAfterSealing: false,
      updatedAfterSealing: false,
      padesLevel: "B-B",
      signer: { subject: expect.stringContaining("ClinSign development seal") },
      // No RFC 3161 timestamp in a B-B seal: the time is the signer's own claim, never the server clock.
      sealedAt: { source: "claimed" },
      request: { signatureId: sealed.id, documentId: sealed.documentId, documentVersion: 1 },
    });
    expect(JSON.stringify(body)).not.toContain("P-verify");
  });

  it("accepts the PDF as a multipart file too", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(sealed.pdf)], { type: "application/pdf" }), "sealed.pdf");
    const response = await fetch(`${api.baseUrl}/verify`, {
      method: "POST",
      body: form,
      headers: { "x-forwarded-for": "203.0.113.8" },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ intact: true, sealedByThisService: true });
  });

  it("says a PDF with a byte changed inside the signed range was modified after sealing, and still names its request", async () => {
    const changed = Buffer.from(sealed.pdf);
    // A letter of the seal's /Reason, inside the first signed range.
    const at = changed.indexOf("Signed by patient") + 7;
    expect(at).toBeGreaterThan(0);
    changed[at] = "B".charCodeAt(0);
    const { status, body } = await verify(new Uint8Array(changed));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "sealed",
      intact: false,
      modifiedAfterSealing: true,
      padesLevel: null,
      sealedByThisService: true,
      request: { signatureId: sealed.id },
    });
  });

  it("lists what an incremental update appended after the seal adds", async () => {
    const { body } = await verify(new Uint8Array(await appendAnnotation(sealed.pdf)));
    expect(body).toMatchObject({
      status: "sealed",
      intact: false,
      modifiedAfterSealing: false,
      updatedAfterSealing: true,
      changes: { annotationsAdded: 1, pagesAdded: 0, formFieldsAdded: 0, otherObjectsChanged: 0 },
      request: { signatureId: sealed.id },
    });
  });

  it("keeps a seal intact when an update only adds a DSS (without a timestamp it stays B-B)", async () => {
    const { body } = await verify(new Uint8Array(await appendDss(sealed.pdf)));
    expect(body).toMatchObject({
      status: "sealed",
      intact: true,
      updatedAfterSealing: false,
      modifiedAfterSealing: false,
      padesLevel: "B-B",
      sealedByThisService: true,
    });
  });

  it("answers a compression bomb appended after the seal without a 500: updated after sealing", async () => {
    // 300 MB of zeros in an object stream: more than the worker may decode (half its 512 MB).
    const bomb = deflateSync(Buffer.alloc(300 * 1024 * 1024), { level: 9 });
    const appended = Buffer.concat([
      sealed.pdf,
      Buffer.from(
        `\n90 0 obj\n<< /Type /ObjStm /N 1 /First 5 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`,
      ),
      bomb,
      Buffer.from("\nendstream\nendobj\n%%EOF\n"),
    ]);
    const { status, body } = await verify(new Uint8Array(appended), "application/pdf", "203.0.113.12");
    expect([200, 400]).toContain(status);
    if (status === 200) expect(body).toMatchObject({ status: "sealed", intact: false, updatedAfterSealing: true });
    else expect(body.error.details).toMatchObject({ reason: "pdf_limits" });
  });

  it("tells a PDF sealed elsewhere: intact, but not this service's, with the signer's claimed time", async () => {
    const { status, body } = await verify(new Uint8Array(await foreignSignedPdf()));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "sealed",
      sealedByThisService: false,
      intact: true,
      request: null,
      signer: { subject: expect.stringContaining("Other Hospital Seal") },
      sealedAt: { source: "claimed" },
    });
  });

  it("answers `unsigned` for a PDF without a signature", async () => {
    const { body } = await verify(new Uint8Array(await makePdf()));
    expect(body).toMatchObject({ status: "unsigned", sealedByThisService: false, intact: false, signatureCount: 0 });
  });

  it("refuses a file that is not a PDF with a clear reason", async () => {
    const { status, body } = await verify(new TextEncoder().encode("hello, I am a text file"));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_request", details: { field: "file", reason: "not_pdf" } });
  });

  it("refuses a 30 MB file as 413 with a clear message", async () => {
    // 30 MB, streamed: the server answers once the cap is passed, not after buffering it all.
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    chunk.set(new TextEncoder().encode("%PDF-1.7\n"));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 30) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${api.baseUrl}/verify`, {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/pdf", "x-forwarded-for": "203.0.113.9" },
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: "payload_too_large",
      message: expect.stringContaining("25 MB"),
    });

    const declared = await fetch(`${api.baseUrl}/verify`, {
      method: "POST",
      body: new Uint8Array(26 * 1024 * 1024),
      headers: { "content-type": "application/pdf", "x-forwarded-for": "203.0.113.10" },
    });
    expect(declared.status).toBe(413);
  });

  it("refuses other media types", async () => {
    const { status } = await verify("{}", "application/json", "203.0.113.11");
    expect(status).toBe(415);
  });

  it("limits checks per address, counting before the body is read", async () => {
    // Each check counts, whatever the file: text files keep the test fast.
    const text = new TextEncoder().encode("not a pdf");
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await verify(text, "application/pdf", "198.51.100.77")).status);
    expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect((await verify(text, "application/pdf", "198.51.100.78")).status).toBe(400);
  });
});
