import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PDFDocument } from "pdf-lib";
import { auditLog, documentVersions, eq, jobs, organizations, signatureRequests } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  bearer,
  makePdf,
  makeBilevelPng,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";
import { JobRunner } from "../../jobs/runner";
import { jobHandlers } from "../../jobs/handlers";
import { SEAL_JOB } from "./seal";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let work: string;

const FIELD = { page: 1, x: 60, y: 650, width: 240, height: 80 };

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, PUBLIC_API_URL: "https://api.test" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  work = mkdtempSync(join(tmpdir(), "clinsign-sealed-"));
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const signing = () => api.trpc({}).signing;
const drawn = () => ({ kind: "drawn" as const, dataUrl: pngDataUrl(makeSignaturePng()) });

async function openAndSign(
  id: { token: string },
  signature: { kind: "drawn"; dataUrl: string } | { kind: "typed"; name: string } = drawn(),
) {
  const view = await signing().open.mutate({ token: id.token });
  expect(view.state).toBe("ready");
  const result = await signing().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature });
  return { view, result };
}

const download = async (id: string, suffix: string, o: TestOrg = org) => {
  const response = await fetch(`${api.baseUrl}/signature-requests/${id}/${suffix}`, { headers: bearer(o) });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
};

const hasTool = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0;

describe("signing.open", () => {
  it("opens by link: marks opened, pins the version, returns what the page needs and a session token", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD, name: "Narkose" });
    await api.request("POST", "/design", {
      headers: bearer(org),
      body: {
        institution_id: "clinic-a",
        logo_url: "https://cdn.example.org/logo.png",
        design_parameters: { primaryColor: "#0A7F5A", font: "Inter" },
      },
    });
    const request = await requestSignature(api, org, documentId, "P-open", "clinic-a");
    const view = await signing().open.mutate({ token: request.token });
    expect(view).toMatchObject({
      state: "ready",
      sessionToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      documentTitle: "Narkose",
      institutionId: "clinic-a",
      // Who is asking: the page names the organization whatever the branding.
      organizationName: "Klinik Nord",
      branding: {
        logoUrl: "https://cdn.example.org/logo.png",
        primaryColor: "#0a7f5a",
        accentColor: null,
        font: "Inter",
      },
      pageCount: 1,
      pageSizes: [{ width: 595.28, height: 841.89 }],
      fields: [FIELD],
    });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row).toMatchObject({ status: "opened", pinnedVersion: 1 });
    const opened = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.opened"));
    expect(opened.find((e) => e.metadata.signatureId === request.id)).toMatchObject({ actorType: "signer" });
    const doc = await signing().document.query({ sessionToken: view.sessionToken! });
    expect(doc).toMatchObject({ contentType: "application/pdf", version: 1 });
    expect(sha256Hex(Buffer.from(doc.base64, "base64"))).toBe(doc.sha256);
  });

  it("gives clear states: unknown, unavailable (draft), expired, declined; a bad session is 401", async () => {
    const documentId = await registerDocument(api, files, org);
    expect((await signing().open.mutate({ token: "x".repeat(43) })).state).toBe("unknown");
    expect((await signing().open.mutate({ ticket: "y".repeat(43) })).state).toBe("unknown");
    const draft = await requestSignature(api, org, documentId, "P-states");
    await api.request("PUT", `/assignments/${draft.id}`, {
      headers: bearer(org),
      body: { id: draft.id, status: "draft" },
    });
    expect(await signing().open.mutate({ token: draft.token })).toMatchObject({
      state: "unavailable",
      sessionToken: null,
    });
    const expired = await requestSignature(api, org, documentId, "P-states");
    await backdateExpiry(api, expired.id);
    expect(await signing().open.mutate({ token: expired.token })).toMatchObject({
      state: "expired",
      sessionToken: null,
    });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, expired.id));
    expect(row!.status).toBe("expired");
    const declined = await requestSignature(api, org, documentId, "P-states");
    const view = await signing().open.mutate({ token: declined.token });
    expect(
      await signing().decline.mutate({
        sessionToken: view.sessionToken!,
        reason: "Ich möchte erst mit dem Arzt sprechen",
      }),
    ).toEqual({ state: "declined" });
    expect(await signing().decline.mutate({ sessionToken: view.sessionToken! })).toEqual({ state: "declined" });
    expect((await signing().open.mutate({ token: declined.token })).state).toBe("declined");
    await expect(
      signing().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "request_declined" } },
    });
    await expect(signing().document.query({ sessionToken: "z".repeat(43) })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    const entry = (await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.declined")))[0];
    expect(entry).toMatchObject({
      actorType: "signer",
      metadata: expect.objectContaining({ reason: "Ich möchte erst mit dem Arzt sprechen" }),
    });
  });

  it("an opened request that expires can no longer be signed (expiry enforced at write)", async () => {
    const documentId = await registerDocument(api, files, org);
    const request = await requestSignature(api, org, documentId, "P-late");
    const view = await signing().open.mutate({ token: request.token });
    await backdateExpiry(api, request.id);
    await expect(
      signing().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "request_expired" } },
    });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.status).toBe("expired");
  });

  it("does not open the bare link when the organization requires session verification", async () => {
    const strict = await api.createOrg("Strict");
    await api.services.db
      .update(organizations)
      .set({
        sessionMethod: "hs256",
        sessionJwtSecretEnc: api.services.secrets.seal("s".repeat(32)),
        requireSessionVerification: true,
      })
      .where(eq(organizations.id, strict.orgId));
    const documentId = await registerDocument(api, files, strict);
    const request = await requestSignature(api, strict, documentId, "P-strict");
    expect(await signing().open.mutate({ token: request.token })).toMatchObject({
      state: "verification_required",
      sessionToken: null,
    });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.status).toBe("pending");
  });
});

describe("signing.sign and completion", () => {
  it("validates consent and the signature image", async () => {
    const documentId = await registerDocument(api, files, org);
    const request = await requestSignature(api, org, documentId, "P-validate");
    const view = await signing().open.mutate({ token: request.token });
    const sessionToken = view.sessionToken!;
    await expect(
      signing().sign.mutate({ sessionToken, consent: false as true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    await expect(
      signing().sign.mutate({
        sessionToken,
        consent: true,
        signature: { kind: "drawn", dataUrl: "data:image/jpeg;base64,AAAA" },
      }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    await expect(
      signing().sign.mutate({
        sessionToken,
        consent: true,
        signature: {
          kind: "drawn",
          dataUrl: `data:image/png;base64,${Buffer.from("not a png at all, definitely not a png image file!!!!!!!!!!!!").toString("base64")}`,
        },
      }),
    ).rejects.toMatchObject({ data: { httpStatus: 400, details: { field: "signature.dataUrl" } } });
    // Within 4000 pixels a side but 9 megapixels: a few KB that sealing would decode to 36 MB.
    await expect(
      signing().sign.mutate({
        sessionToken,
        consent: true,
        signature: { kind: "drawn", dataUrl: pngDataUrl(makeBilevelPng(3000, 3000)) },
      }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "signature.dataUrl" } },
      message: expect.stringContaining("3000 × 3000 pixels"),
    });
    await expect(
      signing().sign.mutate({ sessionToken, consent: true, signature: { kind: "typed", name: "  " } }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.status).toBe("opened");
  });

  it("stamps, appends the audit page, seals, stores; A3 lists it with working downloads; double submission signs once", async () => {
    const documentId = await registerDocument(api, files, org, {
      fields: FIELD,
      pdf: await makePdf([[595.28, 841.89]]),
    });
    const request = await requestSignature(api, org, documentId, "P-complete", "clinic-b");
    const { view, result } = await openAndSign(request);
    expect(result).toEqual({ state: "completed" });
    // The same submission again (double click, retry): nothing is signed twice.
    expect(
      await signing().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() }),
    ).toEqual({ state: "completed" });
    const signedEntries = (
      await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.signed"))
    ).filter((e) => e.metadata.signatureId === request.id);
    expect(signedEntries).toHaveLength(1);
    expect(signedEntries[0]).toMatchObject({ actorType: "signer", userAgent: expect.any(String) });

    const completed = await api.request("GET", "/signature-requests/completed?patient_id=P-complete", {
      headers: bearer(org),
    });
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual([
      {
        signature_id: request.id,
        signed_pdf_url: `https://api.test/signature-requests/${request.id}/signed.pdf`,
        metadata_json_url: `https://api.test/signature-requests/${request.id}/metadata.json`,
        timestamp: expect.any(String),
      },
    ]);
    expect(
      (await api.request("GET", "/signature-requests/completed?patient_id=P-complete", { headers: bearer(other) }))
        .body,
    ).toEqual([]);
    // No longer an open link.
    expect(
      (await api.request("GET", "/signature-requests?patient_id=P-complete", { headers: bearer(org) })).body,
    ).toEqual([]);

    const pdf = await download(request.id, "signed.pdf");
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe("application/pdf");
    expect(pdf.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    const meta = await download(request.id, "metadata.json");
    expect(meta.status).toBe(200);
    expect(meta.type).toContain("application/json");
    expect((await download(request.id, "signed.pdf", other)).status).toBe(404);
    expect((await download(request.id, "metadata.json", other)).status).toBe(404);

    const signedDoc = await PDFDocument.load(pdf.bytes);
    expect(signedDoc.getPageCount()).toBe(2);
    writeFileSync(join(work, "signed.pdf"), pdf.bytes);
  });

  it("writes metadata whose SHA-256 values match the stored bytes", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD });
    const request = await requestSignature(api, org, documentId, "P-meta", "clinic-m");
    await openAndSign(request, { kind: "typed", name: "Erika Mustermann" });
    const meta = JSON.parse((await download(request.id, "metadata.json")).bytes.toString("utf8"));
    const pdf = (await download(request.id, "signed.pdf")).bytes;
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    const original = await api.services.storage.get(version!.storageKey);
    const stamped = await api.services.storage.get(row!.stampedKey!);
    expect(meta).toMatchObject({
      signature_id: request.id,
      document: { id: documentId, version: 1 },
      patient_id: "P-meta",
      institution_id: "clinic-m",
      order_by: "dr.house",
      signer: {
        method: "typed",
        typed_name: "Erika Mustermann",
        ip: expect.stringMatching(/127\.0\.0\.1/),
        user_agent: expect.any(String),
      },
      signature_fields: [FIELD],
      certificate: { sha256_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), development: true },
    });
    expect(meta.sha256.original).toBe(sha256Hex(original!));
    expect(meta.sha256.original).toBe(version!.sha256);
    expect(meta.sha256.stamped).toBe(sha256Hex(stamped!));
    expect(meta.sha256.signed_pdf).toBe(sha256Hex(pdf));
    expect(row!.metadataSha256).toBe(sha256Hex((await download(request.id, "metadata.json")).bytes));
    expect(meta.events.map((e: { action: string }) => e.action)).toEqual([
      "signature.created",
      "signature.opened",
      "signature.signed",
      "signature.completed",
    ]);
    writeFileSync(join(work, "typed.pdf"), pdf);
  });

  it("stores the language the patient signed in and writes the audit page in it (Arabic name, Arabic page)", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD });
    const request = await requestSignature(api, org, documentId, "P-ar");
    const view = await signing().open.mutate({ token: request.token });
    // A language outside the seven is the client's mistake.
    await expect(
      signing().sign.mutate({
        sessionToken: view.sessionToken!,
        consent: true,
        signature: { kind: "typed", name: "محمد" },
        language: "fr" as "ar",
      }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    await signing().sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: { kind: "typed", name: "محمد" },
      language: "ar",
    });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.signingLanguage).toBe("ar");
    const pdf = (await download(request.id, "signed.pdf")).bytes;
    writeFileSync(join(work, "arabic.pdf"), pdf);
  });

  it("keeps a request whose sealing fails visibly pending completion and completes it with the retry job", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD });
    const request = await requestSignature(api, org, documentId, "P-retry");
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    const bytes = (await api.services.storage.get(version!.storageKey))!;
    await api.services.storage.delete(version!.storageKey);
    const { result } = await openAndSign(request);
    expect(result).toEqual({ state: "sealing" });
    const [pending] = await api.services.db
      .select()
      .from(signatureRequests)
      .where(eq(signatureRequests.id, request.id));
    expect(pending).toMatchObject({
      status: "sealing",
      sealAttempts: 1,
      sealError: expect.stringContaining("missing"),
    });
    expect(
      (await api.request("GET", "/signature-requests/completed?patient_id=P-retry", { headers: bearer(org) })).body,
    ).toEqual([]);
    expect((await api.trpc({ bearer: org.token }).signatures.get.query({ id: request.id })).status).toBe("sealing");
    const job = (await api.services.db.select().from(jobs).where(eq(jobs.kind, SEAL_JOB))).find(
      (j) => j.payload.signatureId === request.id,
    );
    expect(job).toMatchObject({ status: "pending", runAt: expect.any(Date) });

    // The file comes back (storage was briefly unavailable); the job finishes the work.
    const restored = await api.services.storage.put("documents", bytes);
    await api.services.db
      .update(documentVersions)
      .set({ storageKey: restored.key })
      .where(eq(documentVersions.id, version!.id));
    await api.services.db.update(jobs).set({ runAt: new Date() }).where(eq(jobs.id, job!.id));
    await new JobRunner(api.services, jobHandlers).runDue();
    const [done] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(done).toMatchObject({ status: "completed", sealError: null });
    expect((await download(request.id, "signed.pdf")).status).toBe(200);
  });
});

describe("version pinning", () => {
  it("pending requests follow the newest version; opened and completed ones keep theirs", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD, name: "Version 1" });
    const early = await requestSignature(api, org, documentId, "P-pin");
    const late = await requestSignature(api, org, documentId, "P-pin");
    const done = await requestSignature(api, org, documentId, "P-pin-done");
    await openAndSign(done);
    const earlyView = await signing().open.mutate({ token: early.token });
    expect(earlyView.documentTitle).toBe("Version 1");
    const moved = { page: 1, x: 300, y: 100, width: 200, height: 50 };
    const update = await api.request("PUT", `/documents/${documentId}`, {
      headers: bearer(org),
      body: { title: "Version 2", fields: { signature: moved } },
    });
    expect(update.status).toBe(200);
    const open = await api.request("GET", "/signature-requests?patient_id=P-pin", { headers: bearer(org) });
    const titles = Object.fromEntries(
      open.body.map((l: { signing_link: string; document_title: string; status: string }) => [
        l.signing_link,
        [l.document_title, l.status],
      ]),
    );
    expect(titles[early.link]).toEqual(["Version 1", "opened"]);
    expect(titles[late.link]).toEqual(["Version 2", "pending"]);
    const lateView = await signing().open.mutate({ token: late.token });
    expect(lateView).toMatchObject({ documentTitle: "Version 2", fields: [moved] });
    const reopened = await signing().open.mutate({ token: early.token });
    expect(reopened).toMatchObject({ documentTitle: "Version 1", fields: [FIELD] });
    expect((await signing().document.query({ sessionToken: reopened.sessionToken! })).version).toBe(1);
    await signing().sign.mutate({ sessionToken: reopened.sessionToken!, consent: true, signature: drawn() });
    const meta = JSON.parse((await download(early.id, "metadata.json")).bytes.toString("utf8"));
    expect(meta.document).toMatchObject({ version: 1, title: "Version 1" });
    const doneMeta = JSON.parse((await download(done.id, "metadata.json")).bytes.toString("utf8"));
    expect(doneMeta.document.version).toBe(1);
  });
});

describe("the sealed PDF, checked with poppler and qpdf", () => {
  it.skipIf(!hasTool("pdfsig"))("pdfsig: the signature is valid and covers the whole, unmodified document", () => {
    for (const file of ["signed.pdf", "typed.pdf", "arabic.pdf"]) {
      const out = spawnSync("pdfsig", [join(work, file)], { encoding: "utf8" });
      expect(out.stdout).toContain("Signature is Valid.");
      expect(out.stdout).toContain("Total document signed");
      expect(out.stdout).toContain("ETSI.CAdES.detached");
      expect(out.stdout).not.toMatch(/modified|Invalid/i);
    }
    // One changed byte in the signed range breaks it.
    const bytes = readFileSync(join(work, "signed.pdf"));
    const tampered = Buffer.from(bytes);
    // The /Reason of the signature dictionary lies inside the signed byte ranges.
    const at = tampered.indexOf("Signed by patient");
    expect(at).toBeGreaterThan(0);
    tampered[at + 7] = "B".charCodeAt(0);
    writeFileSync(join(work, "tampered.pdf"), tampered);
    const out = spawnSync("pdfsig", [join(work, "tampered.pdf")], { encoding: "utf8" });
    expect(out.stdout).not.toContain("Signature is Valid.");
  });

  it.skipIf(!hasTool("qpdf"))("qpdf --check finds no errors", () => {
    for (const file of ["signed.pdf", "typed.pdf", "arabic.pdf"]) {
      const out = spawnSync("qpdf", ["--check", join(work, file)], { encoding: "utf8" });
      expect(out.status, out.stdout + out.stderr).toBe(0);
      expect(out.stdout).toContain("No syntax or stream encoding errors");
    }
  });

  it.skipIf(!hasTool("pdftoppm") || !hasTool("pdftotext"))(
    "the signature is inked inside the field rectangle, and the audit page is there",
    () => {
      for (const file of ["signed.pdf", "typed.pdf"]) {
        const prefix = join(work, file.replace(".pdf", ""));
        expect(
          spawnSync("pdftoppm", ["-r", "72", "-f", "1", "-l", "1", "-gray", join(work, file), prefix]).status,
        ).toBe(0);
        const pgm = readFileSync(`${prefix}-1.pgm`);
        const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 32).toString("latin1"))!;
        const [width, height] = [Number(header[1]), Number(header[2])];
        const pixels = pgm.subarray(header[0].length);
        const darkShare = (x0: number, y0: number, w: number, h: number) => {
          let dark = 0;
          for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) if (pixels[y * width + x]! < 128) dark++;
          return dark / (w * h);
        };
        expect(height).toBe(842);
        const inField = darkShare(FIELD.x, FIELD.y, FIELD.width, FIELD.height);
        expect(inField, file).toBeGreaterThan(file === "signed.pdf" ? 0.3 : 0.03);
        // Outside the field (right of it), the page stays blank.
        expect(darkShare(FIELD.x + FIELD.width + 20, FIELD.y, 200, FIELD.height)).toBe(0);
        const text = spawnSync("pdftotext", ["-f", "2", "-l", "2", join(work, file), "-"], { encoding: "utf8" }).stdout;
        expect(text).toContain("Signature audit trail");
        expect(text).toContain("SHA-256 of the original");
      }
      // Signed in Arabic: the page is Arabic with the clinic's German beside it, the name stamped.
      const arabic = join(work, "arabic.pdf");
      expect(spawnSync("pdftotext", ["-f", "1", "-l", "1", arabic, "-"], { encoding: "utf8" }).stdout).toContain(
        "محمد",
      );
      const audit = spawnSync("pdftotext", ["-f", "2", "-l", "2", arabic, "-"], { encoding: "utf8" }).stdout;
      expect(audit).toContain("سجل");
      expect(audit).toContain("Signaturprotokoll");
      expect(audit).toContain("محمد");
    },
  );
});

describe("STORAGE=db", () => {
  it("registers, signs, seals and serves the signed PDF with files kept in the database", async () => {
    const dbApi = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, STORAGE: "db" });
    try {
      const dbOrg = await dbApi.createOrg();
      const documentId = await registerDocument(dbApi, files, dbOrg, { fields: FIELD });
      const request = await requestSignature(dbApi, dbOrg, documentId, "P-db");
      const view = await dbApi.trpc({}).signing.open.mutate({ token: request.token });
      expect(
        await dbApi
          .trpc({})
          .signing.sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() }),
      ).toEqual({ state: "completed" });
      const response = await fetch(`${dbApi.baseUrl}/signature-requests/${request.id}/signed.pdf`, {
        headers: bearer(dbOrg),
      });
      expect(response.status).toBe(200);
      const meta = (await (
        await fetch(`${dbApi.baseUrl}/signature-requests/${request.id}/metadata.json`, { headers: bearer(dbOrg) })
      ).json()) as { sha256: { signed_pdf: string } };
      expect(meta.sha256.signed_pdf).toBe(sha256Hex(Buffer.from(await response.arrayBuffer())));
    } finally {
      await dbApi.close();
    }
  });
});
