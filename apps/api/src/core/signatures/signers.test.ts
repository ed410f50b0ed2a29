import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFPage } from "pdf-lib";
import {
  auditLog,
  eq,
  organizations,
  signatureNotices,
  signatureRequests,
  signatureSigners,
  users,
  webhookDeliveries,
} from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { logInCookie, type TestApi, type TestOrg } from "../../testing/harness";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import {
  backdateExpiry,
  bearer,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  type FileServer,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";
import { updateOrganizationSettings } from "../organizations/organizations";
import { queueDueReminders } from "../jobs/signature-reminders";
import { createStaffUser } from "../identity/store/accounts";

const DAY = 86_400_000;
const PAGE_HEIGHT = 841.89;

let setup: SignatureTestApi;
let api: TestApi;
let files: FileServer;
let twilio: Receiver;
let hooks: Receiver;
let org: TestOrg;
let other: TestOrg;
/** Staff sessions: the owner, the named physician, a colleague who is not named, another organization's owner. */
let owner: string;
let physician: { id: string; cookie: string };
let colleague: { id: string; cookie: string };
let foreign: string;
let documentId: string;
/** The services' clock (reminders); the database's clock stays real. */
let now: Date;

// An informed consent: the patient, a legal representative and the physician sign; a witness may.
const PATIENT = { page: 1, x: 40, y: 600, width: 200, height: 60 };
const GUARDIAN = { page: 1, x: 300, y: 600, width: 200, height: 60, role: "legal_representative" };
const PHYSICIAN = { page: 1, x: 40, y: 700, width: 200, height: 60, role: "physician" };
const WITNESS = { page: 1, x: 300, y: 700, width: 200, height: 60, role: "witness", required: false };

async function staffMember(email: string, role: "staff" | "admin" = "staff") {
  const password = "correct horse battery staple";
  await createStaffUser(api.services, { organizationId: org.orgId, email, password, role });
  const [user] = await api.services.db.select().from(users).where(eq(users.email, email));
  return { id: user!.id, cookie: await logInCookie(api, email, password) };
}

beforeAll(async () => {
  twilio = await startReceiver();
  hooks = await startReceiver();
  setup = await startSignatureApi({ env: twilioEnv(twilio), allowHosts: [`127.0.0.1:${hooks.port}`] });
  ({ api, files, org, other } = setup);
  api.services.clock = () => now;
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${hooks.url}/his`] });
  owner = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  foreign = await logInCookie(api, other.ownerEmail, other.ownerPassword);
  physician = await staffMember("dr.weiss@klinik-nord.test");
  colleague = await staffMember("dr.roth@klinik-nord.test");
  documentId = await registerDocument(api, files, org, {
    name: "Einwilligung Narkose (Kind)",
    fields: [PATIENT, GUARDIAN, PHYSICIAN, WITNESS],
  });
});
afterAll(async () => {
  await setup?.close();
  await twilio?.close();
  await hooks?.close();
});
beforeEach(() => {
  now = new Date();
});

const signingPage = () => api.trpc({}).signing;
const staff = (cookie: string) => api.trpc({ cookie }).signatures;
const drawn = () => ({ kind: "drawn" as const, dataUrl: pngDataUrl(makeSignaturePng()) });
const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);

async function a1(body: Record<string, unknown>, o: TestOrg = org) {
  return api.request("POST", "/signature-requests", {
    headers: bearer(o),
    body: {
      patient_id: "P-kid",
      document_id: documentId,
      institution_id: "paediatrie",
      expiration_date: new Date(Date.now() + 10 * DAY).toISOString(),
      order_by: "dr.weiss",
      ...body,
    },
  });
}

/** A request the patient, the guardian (own link) and the physician (console) sign, in that order unless given. */
async function consent(extra: Record<string, unknown> = {}) {
  const res = await a1({
    signers: [
      { role: "legal_representative", name: "Maria Muster", phone: "+491705555555" },
      { role: "physician", staff_user_id: physician.id },
    ],
    ...extra,
  });
  if (res.status !== 201) throw new Error(`A1 failed: ${res.status} ${JSON.stringify(res.body)}`);
  const signers = res.body.signers as { signer_id: string; role: string; kind: string; signing_link: string | null }[];
  const link = (role: string) => signers.find((s) => s.role === role)!.signing_link!;
  return {
    id: res.body.signature_id as string,
    body: res.body,
    patient: tokenOf(res.body.signing_link),
    guardian: tokenOf(link("legal_representative")),
  };
}

async function open(token: string) {
  const view = await signingPage().open.mutate({ token });
  return view;
}
async function sign(token: string, signature: ReturnType<typeof drawn> | { kind: "typed"; name: string } = drawn()) {
  const view = await open(token);
  return signingPage().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature });
}
const requestRow = async (id: string) =>
  (await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id)))[0]!;
const a3 = async (patientId = "P-kid") =>
  (await api.request("GET", `/signature-requests/completed?patient_id=${patientId}`, { headers: bearer(org) }))
    .body as {
    signature_id: string;
  }[];

/** Image placements (`1 0 0 1 x y cm … /Name Do`) and text positions (`x y Td <hex> Tj`) on a page, in PDF user space. */
function marksOf(doc: PDFDocument, page: PDFPage) {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
  const text = streams
    .map((s) => (s instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(s).decode()).toString("latin1") : ""))
    .join("\n");
  const images = [...text.matchAll(/1 0 0 1 ([\d.-]+) ([\d.-]+) cm[\s\S]*?\/(\S+) Do/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    name: m[3]!,
  }));
  const texts = [...text.matchAll(/([\d.-]+) ([\d.-]+) Td <([0-9a-f]+)> Tj/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    text: Buffer.from(m[3]!, "hex").toString("latin1"),
  }));
  return { images, texts, raw: text };
}
const inside = (p: { x: number; y: number }, r: { x: number; y: number; width: number; height: number }) =>
  p.x >= r.x && p.x <= r.x + r.width && p.y >= PAGE_HEIGHT - r.y - r.height && p.y <= PAGE_HEIGHT - r.y;

describe("one-patient requests stay as they were", () => {
  it("a document with one patient field: A1, the portal view and the seal answer exactly as before", async () => {
    const plain = await registerDocument(api, files, org, { name: "Einfach" });
    const res = await a1({ document_id: plain, patient_id: "P-plain" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["expiration_date", "signature_id", "signing_link"]);
    const view = await open(tokenOf(res.body.signing_link));
    expect(view.state).toBe("ready");
    expect(view).not.toHaveProperty("party");
    expect(view.fields).toEqual([{ page: 1, x: 50, y: 600, width: 200, height: 60 }]);
    const result = await signingPage().sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: drawn(),
    });
    expect(result).toEqual({ state: "completed" });
    expect(
      await api.services.db
        .select()
        .from(signatureSigners)
        .where(eq(signatureSigners.signatureRequestId, res.body.signature_id)),
    ).toEqual([]);
    const meta = await api.request("GET", `/signature-requests/${res.body.signature_id}/metadata.json`, {
      headers: bearer(org),
    });
    expect(meta.body).not.toHaveProperty("signers");
    expect(meta.body.signer).toMatchObject({ method: "drawn" });
    const detail = await staff(owner).detail.query({ id: res.body.signature_id });
    expect(detail).not.toHaveProperty("signers");
  });

  it("A6 and A8 take role and required on a field, echo what was sent, and refuse bad ones naming the field", async () => {
    const bad = await api.request("POST", "/documents", {
      headers: bearer(org),
      body: {
        document_name: "x",
        signingfield_koordinates: { ...PATIENT, role: "x".repeat(61) },
        document_bloburl: `${files.origin}/nothing.pdf`,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe("signingfield_koordinates");
    const notBool = await api.request("PUT", `/documents/${documentId}`, {
      headers: bearer(org),
      body: { fields: { signature: [{ ...PATIENT, required: "yes" }] } },
    });
    expect(notBool.status).toBe(400);
    const docs = await api.trpc({ cookie: owner }).documents.detail.query({ id: documentId });
    expect(docs.fields).toEqual([PATIENT, GUARDIAN, PHYSICIAN, WITNESS]);
  });

  it("A1 refuses signers that do not fit the document (400, details.field signers)", async () => {
    const refuse = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await a1(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "signers" } });
      expect(res.body.error.message).toMatch(message);
    };
    await refuse({}, /legal_representative.*physician/);
    await refuse({ signers: [{ role: "physician", staff_user_id: physician.id }] }, /legal_representative/);
    await refuse(
      {
        signers: [
          { role: "legal_representative" },
          { role: "physician", staff_user_id: physician.id },
          { role: "nurse" },
        ],
      },
      /no field for the role "nurse"/,
    );
    await refuse(
      { signers: [{ role: "legal_representative" }, { role: "legal_representative" }, { role: "physician" }] },
      /named twice/,
    );
    // Another organization's staff member cannot be named.
    const [stranger] = await api.services.db.select().from(users).where(eq(users.email, other.ownerEmail));
    await refuse(
      { signers: [{ role: "legal_representative" }, { role: "physician", staff_user_id: stranger!.id }] },
      /not an active member/,
    );
    await refuse(
      {
        signers: [
          { role: "patient", staff_user_id: physician.id },
          { role: "legal_representative" },
          { role: "physician" },
        ],
      },
      /patient signs through/,
    );
    const badOrder = await a1({
      signers: [{ role: "legal_representative" }, { role: "physician" }],
      signing_order: "random",
    });
    expect(badOrder.status).toBe(400);
    expect(badOrder.body.error.details.field).toBe("signing_order");
  });
});

describe("several signers, sequential", () => {
  it("patient, then guardian, then physician: out of turn refused, each sees only their fields and the others' signatures, sealed once with every field stamped", async () => {
    const request = await consent();
    expect(request.body.signers).toEqual([
      {
        signer_id: expect.any(String),
        role: "patient",
        kind: "patient",
        name: null,
        signing_link: request.body.signing_link,
      },
      {
        signer_id: expect.any(String),
        role: "legal_representative",
        kind: "link",
        name: "Maria Muster",
        signing_link: expect.stringMatching(/^https:\/\/portal\.test\/sign\/[A-Za-z0-9_-]{43}$/),
      },
      { signer_id: expect.any(String), role: "physician", kind: "staff", name: null, signing_link: null },
    ]);
    expect(request.guardian).not.toBe(request.patient);

    // The guardian comes first: it is not their turn.
    const early = await open(request.guardian);
    expect(early).toMatchObject({ state: "waiting", fields: [GUARDIAN] });
    expect(early.party).toMatchObject({ order: "sequential", waitingFor: ["patient"] });
    await expect(
      signingPage().sign.mutate({ sessionToken: early.sessionToken!, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "not_your_turn", waitingFor: ["patient"] } },
    });
    // Reading ahead is fine.
    expect((await signingPage().document.query({ sessionToken: early.sessionToken! })).contentType).toBe(
      "application/pdf",
    );
    // The physician is not on turn either.
    await expect(
      staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "not_your_turn", waitingFor: ["patient", "legal_representative"] } },
    });

    // The patient signs: their own field only; the request is not complete and A3 does not list it.
    const patientView = await open(request.patient);
    expect(patientView).toMatchObject({ state: "ready", fields: [PATIENT] });
    expect(patientView.party!.signers.map((s) => [s.role, s.status])).toEqual([
      ["patient", "opened"],
      ["legal_representative", "waiting"],
      ["physician", "waiting"],
    ]);
    expect(
      await signingPage().sign.mutate({ sessionToken: patientView.sessionToken!, consent: true, signature: drawn() }),
    ).toEqual({ state: "signed" });
    expect((await requestRow(request.id)).status).toBe("opened");
    expect((await a3()).map((r) => r.signature_id)).not.toContain(request.id);
    expect((await open(request.patient)).state).toBe("signed");

    // The guardian's turn: they see the patient's signature placed in the patient's field.
    const status = await signingPage().status.query({ sessionToken: early.sessionToken! });
    expect(status.state).toBe("ready");
    const guardianView = await open(request.guardian);
    expect(guardianView.state).toBe("ready");
    const patientSigned = guardianView.party!.signers.find((s) => s.role === "patient")!;
    expect(patientSigned).toMatchObject({
      status: "signed",
      fields: [PATIENT],
      signature: { kind: "drawn", dataUrl: expect.stringMatching(/^data:image\/png;base64,/) },
    });
    expect(guardianView.party!.signers.find((s) => s.role === "legal_representative")!.label).toBe("Maria Muster");
    expect(
      await signingPage().sign.mutate({
        sessionToken: guardianView.sessionToken!,
        consent: true,
        signature: { kind: "typed", name: "Maria Muster" },
      }),
    ).toEqual({ state: "signed" });

    // Only the named physician signs the physician's field.
    await expect(
      staff(colleague.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 403, details: { reason: "not_the_named_signer" } } });
    await expect(staff(colleague.cookie).staffSigningView.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    expect((await staff(physician.cookie).awaitingMySignature.query()).items.map((i) => i.id)).toContain(request.id);
    const physicianView = await staff(physician.cookie).staffSigningView.mutate({ id: request.id });
    expect(physicianView).toMatchObject({ state: "ready", fields: [PHYSICIAN], sessionToken: null });
    expect(physicianView.party!.signers.map((s) => s.signature?.kind ?? null)).toEqual(["drawn", "typed", null]);
    expect(physicianView.party!.signers[2]!.label).toBe("dr.weiss@klinik-nord.test");
    const done = await staff(physician.cookie).signAsStaff.mutate({
      id: request.id,
      consent: true,
      signature: drawn(),
    });
    expect(done).toEqual({ state: "completed" });
    // A second submission signs nothing.
    expect(
      await staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).toEqual({ state: "completed" });

    const row = await requestRow(request.id);
    expect(row).toMatchObject({ status: "completed", signatureMethod: null });
    expect((await a3()).filter((r) => r.signature_id === request.id)).toHaveLength(1);
    const completions = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.completed"));
    expect(completions.filter((e) => e.metadata.signatureId === request.id)).toHaveLength(1);

    // Every signer's fields carry their own signature; the optional witness field stays empty.
    const stamped = await PDFDocument.load((await api.services.storage.get(row.stampedKey!))!);
    const marks = marksOf(stamped, stamped.getPage(0));
    const imageIn = (rect: typeof PATIENT) => marks.images.filter((m) => inside(m, rect));
    expect(imageIn(PATIENT)).toHaveLength(1);
    expect(imageIn(PHYSICIAN)).toHaveLength(1);
    expect(imageIn(PATIENT)[0]!.name).not.toBe(imageIn(PHYSICIAN)[0]!.name);
    expect(marks.texts.filter((t) => inside(t, GUARDIAN)).map((t) => t.text)).toEqual(["Maria Muster"]);
    expect(imageIn(GUARDIAN)).toHaveLength(0);
    expect(imageIn(WITNESS)).toHaveLength(0);
    expect(marks.texts.filter((t) => inside(t, WITNESS))).toHaveLength(0);

    // The audit page lists every signer with method, time and address.
    const signed = await PDFDocument.load(
      Buffer.from(
        await (
          await fetch(`${api.baseUrl}/signature-requests/${request.id}/signed.pdf`, { headers: bearer(org) })
        ).arrayBuffer(),
      ),
    );
    const auditPage = marksOf(signed, signed.getPage(signed.getPageCount() - 1)).texts.map((t) => t.text);
    expect(auditPage).toContain("Signer 1: patient");
    expect(auditPage).toContain("Signer 2: legal_representative");
    expect(auditPage).toContain("Signer 3: physician");
    expect(auditPage.join(" ")).toMatch(/Maria Muster; typed name; signed \d{4}-.*IP .*127\.0\.0\.1/);
    expect(auditPage.join(" ")).toMatch(/dr\.weiss@klinik-nord\.test; handwritten signature; signed/);
    const meta = (await api.request("GET", `/signature-requests/${request.id}/metadata.json`, { headers: bearer(org) }))
      .body;
    expect(meta.signing_order).toBe("sequential");
    expect(meta.signers.map((s: { role: string; method: string; ip: string }) => [s.role, s.method, !!s.ip])).toEqual([
      ["patient", "drawn", true],
      ["legal_representative", "typed", true],
      ["physician", "drawn", true],
    ]);

    // Staff see every signer in the detail, without tokens, phones or addresses.
    const detail = await staff(owner).detail.query({ id: request.id });
    expect(detail.signingOrder).toBe("sequential");
    expect(detail.signers!.map((s) => [s.role, s.kind, s.status, s.signatureMethod])).toEqual([
      ["patient", "patient", "signed", "drawn"],
      ["legal_representative", "link", "signed", "typed"],
      ["physician", "staff", "signed", "drawn"],
    ]);
    expect(detail.signers![1]).toMatchObject({ name: "Maria Muster", hasPhone: true });
    const json = JSON.stringify(detail.signers);
    expect(json).not.toContain(request.guardian);
    expect(json).not.toContain("+491705555555");
    expect(json).not.toContain("127.0.0.1");
    expect(detail.timeline.filter((e) => e.kind === "signed").map((e) => e.detail)).toEqual([
      "patient: drawn",
      "legal_representative: typed",
      "physician: drawn",
    ]);
  });

  it("hands a link signer's link out again to staff (audited), never a staff signer's", async () => {
    const request = await consent({ patient_id: "P-links" });
    const signers = request.body.signers as { signer_id: string; role: string; signing_link: string | null }[];
    const guardian = signers.find((s) => s.role === "legal_representative")!;
    expect(await staff(owner).revealSignerLink.mutate({ id: request.id, signerId: guardian.signer_id })).toEqual({
      signingUrl: guardian.signing_link,
    });
    const viewed = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.link_viewed"));
    expect(viewed.find((e) => e.metadata.signatureId === request.id)).toMatchObject({
      actorType: "user",
      metadata: { signerId: guardian.signer_id, role: "legal_representative" },
    });
    const doctor = signers.find((s) => s.role === "physician")!;
    await expect(
      staff(owner).revealSignerLink.mutate({ id: request.id, signerId: doctor.signer_id }),
    ).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
    await expect(
      staff(foreign).revealSignerLink.mutate({ id: request.id, signerId: guardian.signer_id }),
    ).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });
});

describe("the staff list after a signature (issue 31: it said 'Opened' after the patient signed)", () => {
  it("a request with several signers says how many signed; a one-patient request is completed", async () => {
    const listed = async (patientId: string) => {
      const page = await staff(owner).list.query({ patientId, limit: 10 });
      expect(page.items).toHaveLength(1);
      return page.items[0]!;
    };
    const request = await consent({ patient_id: "P-list-progress" });
    expect(await listed("P-list-progress")).toMatchObject({
      status: "pending",
      signerProgress: { signed: 0, total: 3 },
    });
    await sign(request.patient);
    // Still open for the guardian and the physician, and the list says the patient has signed.
    expect(await listed("P-list-progress")).toMatchObject({
      status: "opened",
      signerProgress: { signed: 1, total: 3 },
    });
    await sign(request.guardian);
    await staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() });
    expect(await listed("P-list-progress")).toMatchObject({
      status: "completed",
      completedAt: expect.any(String),
      signerProgress: { signed: 3, total: 3 },
    });

    const plain = await registerDocument(api, files, org, { name: "Einfach (Liste)" });
    const single = await a1({ document_id: plain, patient_id: "P-list-single" });
    await sign(tokenOf(single.body.signing_link));
    const item = await listed("P-list-single");
    expect(item).toMatchObject({ status: "completed", completedAt: expect.any(String) });
    expect(item).not.toHaveProperty("signerProgress");
    // Another organization's list has none of it.
    expect((await staff(foreign).list.query({ patientId: "P-list-progress", limit: 10 })).items).toEqual([]);
  });
});

describe("A4 verification required", () => {
  it("still guards the patient's link; a guardian's own link opens without it", async () => {
    await api.services.db
      .update(organizations)
      .set({ requireSessionVerification: true })
      .where(eq(organizations.id, org.orgId));
    try {
      const request = await consent({ patient_id: "P-a4", signing_order: "parallel" });
      expect((await open(request.patient)).state).toBe("verification_required");
      expect((await open(request.guardian)).state).toBe("ready");
    } finally {
      await api.services.db
        .update(organizations)
        .set({ requireSessionVerification: false })
        .where(eq(organizations.id, org.orgId));
    }
  });
});

describe("several signers, parallel", () => {
  it("everyone may sign at once, in any order; sealed when the last required signature is in", async () => {
    const request = await consent({
      patient_id: "P-par",
      signing_order: "parallel",
      signers: [
        { role: "legal_representative", name: "Maria Muster" },
        { role: "physician", staff_user_id: physician.id },
        // Optional: the request does not wait for the witness.
        { role: "witness", name: "Tom Zeuge" },
      ],
    });
    expect((await open(request.guardian)).state).toBe("ready");
    expect(
      await staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).toEqual({
      state: "signed",
    });
    expect(await sign(request.guardian)).toEqual({ state: "signed" });
    expect((await requestRow(request.id)).status).toBe("opened");
    expect(await sign(request.patient)).toEqual({ state: "completed" });
    const detail = await staff(owner).detail.query({ id: request.id });
    expect(detail.status).toBe("completed");
    expect(detail.signingOrder).toBe("parallel");
    expect(detail.signers!.map((s) => [s.role, s.required, s.status])).toEqual([
      ["patient", true, "signed"],
      ["legal_representative", true, "signed"],
      ["physician", true, "signed"],
      ["witness", false, "skipped"],
    ]);
  });
});

describe("several signers in their own languages (issue 19)", () => {
  it("the patient's language writes the audit page; each signer's typed name is stamped in its script", async () => {
    const request = await consent({
      patient_id: "P-lang",
      signing_order: "parallel",
      signers: [
        { role: "legal_representative", name: "Олександр Шевченко" },
        { role: "physician", staff_user_id: physician.id },
      ],
    });
    const signIn = async (token: string, name: string, language: "uk" | "pl") => {
      const view = await open(token);
      return signingPage().sign.mutate({
        sessionToken: view.sessionToken!,
        consent: true,
        signature: { kind: "typed", name },
        language,
      });
    };
    await signIn(request.guardian, "Олександр Шевченко", "uk");
    await staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() });
    expect(await signIn(request.patient, "Łukasz Żółć", "pl")).toEqual({ state: "completed" });
    const signers = await api.services.db
      .select()
      .from(signatureSigners)
      .where(eq(signatureSigners.signatureRequestId, request.id));
    expect(Object.fromEntries(signers.map((row) => [row.role, row.signingLanguage]))).toEqual({
      patient: "pl",
      legal_representative: "uk",
      physician: null,
    });
    const pdf = Buffer.from(
      await (
        await fetch(`${api.baseUrl}/signature-requests/${request.id}/signed.pdf`, { headers: bearer(org) })
      ).arrayBuffer(),
    );
    const dir = mkdtempSync(join(tmpdir(), "signers-lang-"));
    writeFileSync(join(dir, "signed.pdf"), pdf);
    const text = (first: number, last: number) =>
      spawnSync("pdftotext", ["-f", String(first), "-l", String(last), join(dir, "signed.pdf"), "-"], {
        encoding: "utf8",
      }).stdout;
    if (spawnSync("pdftotext", ["-v"]).status !== 0) return;
    const stamped = text(1, 1);
    expect(stamped).toContain("Łukasz Żółć");
    expect(stamped).toContain("Олександр Шевченко");
    // The audit page: Polish (the patient's), the clinic's German beside, every signer's row.
    const audit = text(2, 9);
    expect(audit).toContain("Protokół podpisu");
    expect(audit).toContain("Signaturprotokoll");
    expect(audit).toContain("Podpisujący 1: pacjent");
    expect(audit).toContain("Podpisujący 2: przedstawiciel ustawowy");
    expect(audit).toMatch(/Олександр Шевченко; wpisane imię i nazwisko; podpisano \d{4}-/);
  });
});

describe("decline, expiry, isolation", () => {
  it("the second signer declines: the request stops, staff see role and reason, the webhook carries the role", async () => {
    const request = await consent({ patient_id: "P-decline" });
    await sign(request.patient);
    const view = await open(request.guardian);
    expect(
      await signingPage().decline.mutate({ sessionToken: view.sessionToken!, reason: "Wir möchten erst beraten" }),
    ).toEqual({
      state: "declined",
    });
    expect(await requestRow(request.id)).toMatchObject({
      status: "declined",
      declinedRole: "legal_representative",
      declineReason: "Wir möchten erst beraten",
    });
    // Nobody signs after that.
    await expect(
      staff(physician.cookie).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 409, details: { reason: "request_declined" } } });
    expect((await open(request.patient)).state).toBe("declined");
    const detail = await staff(owner).detail.query({ id: request.id });
    expect(detail).toMatchObject({
      status: "declined",
      declinedRole: "legal_representative",
      declineReason: "Wir möchten erst beraten",
    });
    expect(detail.signers!.map((s) => s.status)).toEqual(["signed", "declined", "waiting"]);
    expect(detail.timeline).toContainEqual(
      expect.objectContaining({ kind: "declined", detail: "legal_representative: Wir möchten erst beraten" }),
    );
    const deliveries = await api.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.eventType, "signature.declined"));
    const body = deliveries.map((d) => JSON.parse(d.body)).find((b) => JSON.stringify(b).includes(request.id));
    expect(JSON.stringify(body)).toContain('"role":"legal_representative"');
    expect(JSON.stringify(body)).toContain("Wir möchten erst beraten");
  });

  it("the named staff signer may decline too; an expired request refuses everyone", async () => {
    const declined = await consent({ patient_id: "P-staff-decline", signing_order: "parallel" });
    expect(
      await staff(physician.cookie).declineAsStaff.mutate({ id: declined.id, reason: "Indikation entfällt" }),
    ).toEqual({
      state: "declined",
    });
    expect(await requestRow(declined.id)).toMatchObject({ status: "declined", declinedRole: "physician" });

    const lapsed = await consent({ patient_id: "P-expired" });
    await sign(lapsed.patient);
    await backdateExpiry(api, lapsed.id);
    now = new Date();
    expect((await open(lapsed.guardian)).state).toBe("expired");
    await expect(
      staff(physician.cookie).signAsStaff.mutate({ id: lapsed.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 409 } });
    expect((await requestRow(lapsed.id)).status).toBe("expired");
  });

  it("another organization reaches none of it", async () => {
    const request = await consent({ patient_id: "P-iso" });
    // The picker offers this organization's members only.
    const candidates = (await staff(colleague.cookie).signerCandidates.query()).items.map((c) => c.email);
    expect(candidates).toEqual(
      expect.arrayContaining([org.ownerEmail, "dr.weiss@klinik-nord.test", "dr.roth@klinik-nord.test"]),
    );
    expect(candidates).not.toContain(other.ownerEmail);
    await expect(staff(foreign).detail.query({ id: request.id })).rejects.toMatchObject({ data: { httpStatus: 404 } });
    await expect(staff(foreign).staffSigningView.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(
      staff(foreign).signAsStaff.mutate({ id: request.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    // Its API token cannot name this organization's document.
    expect((await a1({ signers: [{ role: "legal_representative" }] }, other)).status).toBe(404);
    // A one-patient request has no staff signer: nobody signs it in the console.
    const plain = await requestSignature(api, org, await registerDocument(api, files, org), "P-iso-plain");
    await expect(
      staff(physician.cookie).signAsStaff.mutate({ id: plain.id, consent: true, signature: drawn() }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
  });
});

describe("reminders per signer", () => {
  it("reminds each signer once, counted from their turn, by their own channel", async () => {
    {
      // The request's own reminder days: the other tests' open requests are never due.
      const request = await consent({ patient_id: "P-remind", patient_phone: "+491706666666", reminder_days: 2 });
      const runJobs = async () => {
        const runner = new JobRunner(api.services, jobHandlers);
        while ((await runner.runDue()) > 0);
      };
      const smsTo = (phone: string) =>
        twilio.requests
          .filter((r) => new URLSearchParams(r.body).get("To") === phone)
          .map((r) => new URLSearchParams(r.body));
      const notices = () =>
        api.services.db.select().from(signatureNotices).where(eq(signatureNotices.signatureRequestId, request.id));

      // Day 3: only the patient's turn has come.
      now = new Date(Date.now() + 2 * DAY + 60_000);
      expect(await queueDueReminders(api.services)).toBe(1);
      expect(await queueDueReminders(api.services)).toBe(0);
      await runJobs();
      expect(smsTo("+491706666666")).toHaveLength(1);
      expect(smsTo("+491706666666")[0]!.get("Body")).toContain(`https://portal.test/sign/${request.patient}`);
      expect(smsTo("+491705555555")).toHaveLength(0);

      // The patient signs; the guardian's turn starts now and is reminded two days later, once, with their own link.
      now = new Date();
      await sign(request.patient);
      now = new Date(Date.now() + DAY);
      expect(await queueDueReminders(api.services)).toBe(0);
      now = new Date(Date.now() + 2 * DAY + 60_000);
      expect(await queueDueReminders(api.services)).toBe(1);
      expect(await queueDueReminders(api.services)).toBe(0);
      await runJobs();
      expect(smsTo("+491705555555")).toHaveLength(1);
      expect(smsTo("+491705555555")[0]!.get("Body")).toContain(`https://portal.test/sign/${request.guardian}`);
      expect(smsTo("+491706666666")).toHaveLength(1);

      // The guardian signs; the physician (console, no phone) is "reminded" without a channel, once.
      now = new Date();
      await sign(request.guardian);
      now = new Date(Date.now() + 2 * DAY + 60_000);
      expect(await queueDueReminders(api.services)).toBe(1);
      await runJobs();
      expect(await queueDueReminders(api.services)).toBe(0);
      const rows = await notices();
      const byRole = async (signerId: string | null) =>
        signerId
          ? (await api.services.db.select().from(signatureSigners).where(eq(signatureSigners.id, signerId)))[0]!.role
          : null;
      const summary = await Promise.all(rows.map(async (n) => [await byRole(n.signerId), n.status, n.channel]));
      expect(summary.sort()).toEqual([
        ["legal_representative", "sent", "sms"],
        ["patient", "sent", "sms"],
        ["physician", "no_channel", "none"],
      ]);
    }
  });
});
