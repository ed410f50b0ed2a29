import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import { auditLog, documentVersions, eq, signatureRequests } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  bearer,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";
import { updateOrganizationSettings } from "../organizations/organizations";

// The signer's own copy of the sealed PDF (§630e BGB): behind the signing link (or an A4 ticket
// where the organization requires one) for the organization's `signedCopyDays` after signing.

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;

const FIELD = { page: 1, x: 60, y: 650, width: 240, height: 80 };
const SECRET = "portal-shared-secret-0123456789abcdef";
const DAY_MS = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, PUBLIC_WEB_URL: "https://portal.test" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const signing = () => api.trpc({}).signing;

async function signedRequest(o: TestOrg, patientId: string) {
  const documentId = await registerDocument(api, files, o, { fields: FIELD });
  const request = await requestSignature(api, o, documentId, patientId);
  const view = await signing().open.mutate({ token: request.token });
  const result = await signing().sign.mutate({
    sessionToken: view.sessionToken!,
    consent: true,
    signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
  });
  expect(result).toEqual({ state: "completed" });
  return { ...request, signingSession: view.sessionToken! };
}

/** Moves the signing time back, as if the patient had signed `days` days ago. */
async function signedDaysAgo(id: string, days: number) {
  const at = new Date(Date.now() - days * DAY_MS);
  await api.services.db
    .update(signatureRequests)
    .set({ signedAt: at, completedAt: at })
    .where(eq(signatureRequests.id, id));
}

const storedSignedPdf = async (id: string) => {
  const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id));
  return (await api.services.storage.get(row!.signedPdfKey!))!;
};

const copyDownloads = async (id: string) =>
  (await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.copy_downloaded"))).filter(
    (e) => e.metadata.signatureId === id,
  );

describe("the signer's copy through the signing link", () => {
  it("reopening the link after signing offers the sealed PDF for the period, and each download is audited", async () => {
    const request = await signedRequest(org, "P-copy");
    const view = await signing().open.mutate({ token: request.token });
    const until = Date.parse(view.signedCopyUntil!);
    expect(view).toMatchObject({
      state: "completed",
      signedCopy: "available",
      sessionToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    // The default period: 30 days after signing.
    expect(Math.abs(until - (Date.now() + 30 * DAY_MS))).toBeLessThan(60_000);
    // The copy session lives at most 60 minutes, never past the period.
    expect(Date.parse(view.sessionExpiresAt!)).toBeLessThanOrEqual(Date.now() + 60 * 60_000 + 1000);

    expect(await signing().status.query({ sessionToken: view.sessionToken! })).toEqual({
      state: "completed",
      signedCopy: "available",
      signedCopyUntil: view.signedCopyUntil,
    });
    const copy = await signing().signedDocument.query({ sessionToken: view.sessionToken! });
    const stored = await storedSignedPdf(request.id);
    expect(Buffer.from(copy.base64!, "base64").equals(stored)).toBe(true);
    expect(copy.sha256).toBe(sha256Hex(stored));
    // The same bytes as the clinic's A3 download.
    const a3 = await fetch(`${api.baseUrl}/signature-requests/${request.id}/signed.pdf`, { headers: bearer(org) });
    expect(Buffer.from(await a3.arrayBuffer()).equals(stored)).toBe(true);

    const entries = await copyDownloads(request.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: org.orgId,
      actorType: "signer",
      actorId: request.id,
      ip: expect.stringMatching(/127\.0\.0\.1/),
      userAgent: expect.any(String),
      metadata: { signatureId: request.id, sha256: sha256Hex(stored) },
    });
    // Polling the status is not a download.
    await signing().status.query({ sessionToken: view.sessionToken! });
    expect(await copyDownloads(request.id)).toHaveLength(1);
    // The copy session cannot sign again or decline.
    await expect(signing().decline.mutate({ sessionToken: view.sessionToken! })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
  });

  it("while sealing still runs, the reopened link says the copy is being prepared (no PDF yet, nothing audited)", async () => {
    const documentId = await registerDocument(api, files, org, { fields: FIELD });
    const request = await requestSignature(api, org, documentId, "P-copy-sealing");
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    // The stored original is briefly unavailable: sealing fails now and the job retries later.
    await api.services.storage.delete(version!.storageKey);
    const first = await signing().open.mutate({ token: request.token });
    expect(
      await signing().sign.mutate({
        sessionToken: first.sessionToken!,
        consent: true,
        signature: { kind: "typed", name: "Erika Mustermann" },
      }),
    ).toEqual({ state: "sealing" });
    const view = await signing().open.mutate({ token: request.token });
    expect(view).toMatchObject({ state: "sealing", signedCopy: "preparing", sessionToken: expect.any(String) });
    expect(await signing().status.query({ sessionToken: view.sessionToken! })).toMatchObject({
      state: "sealing",
      signedCopy: "preparing",
    });
    expect(await signing().signedDocument.query({ sessionToken: view.sessionToken! })).toMatchObject({
      state: "sealing",
      base64: null,
    });
    expect(await copyDownloads(request.id)).toHaveLength(0);
  });

  it("after the period the link says expired, opens no session, and a session still held is refused", async () => {
    const request = await signedRequest(org, "P-copy-late");
    const held = await signing().open.mutate({ token: request.token });
    await signedDaysAgo(request.id, 31);
    const view = await signing().open.mutate({ token: request.token });
    expect(view).toMatchObject({
      state: "completed",
      signedCopy: "expired",
      sessionToken: null,
      sessionExpiresAt: null,
    });
    expect(Date.parse(view.signedCopyUntil!)).toBeLessThan(Date.now());
    expect(await signing().status.query({ sessionToken: held.sessionToken! })).toMatchObject({
      state: "completed",
      signedCopy: "expired",
    });
    await expect(signing().signedDocument.query({ sessionToken: held.sessionToken! })).rejects.toMatchObject({
      data: { httpStatus: 409, details: { reason: "signed_copy_expired" } },
    });
    // The signing session from before is refused the same way.
    await expect(signing().signedDocument.query({ sessionToken: request.signingSession })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
    expect(await copyDownloads(request.id)).toHaveLength(0);
  });

  it("follows the organization's signedCopyDays (a longer period keeps it; 0 offers no online copy)", async () => {
    const clinic = await api.createOrg("Klinik West");
    await updateOrganizationSettings(clinic.ctx, { signedCopyDays: 90 });
    const kept = await signedRequest(clinic, "P-copy-90");
    await signedDaysAgo(kept.id, 60);
    expect(await signing().open.mutate({ token: kept.token })).toMatchObject({
      signedCopy: "available",
      sessionToken: expect.any(String),
    });
    await updateOrganizationSettings(clinic.ctx, { signedCopyDays: 0 });
    const none = await signedRequest(clinic, "P-copy-0");
    expect(await signing().open.mutate({ token: none.token })).toMatchObject({
      state: "completed",
      signedCopy: "expired",
      sessionToken: null,
    });
    await expect(signing().signedDocument.query({ sessionToken: none.signingSession })).rejects.toMatchObject({
      data: { details: { reason: "signed_copy_expired" } },
    });
  });

  it("a session reaches only its own request's copy; made-up sessions get 401", async () => {
    const mine = await signedRequest(org, "P-copy-a");
    const theirs = await signedRequest(other, "P-copy-b");
    const unsignedDoc = await registerDocument(api, files, org, { fields: FIELD });
    const unsigned = await requestSignature(api, org, unsignedDoc, "P-copy-a");
    const mineView = await signing().open.mutate({ token: mine.token });
    const theirView = await signing().open.mutate({ token: theirs.token });
    const unsignedView = await signing().open.mutate({ token: unsigned.token });

    const mineCopy = await signing().signedDocument.query({ sessionToken: mineView.sessionToken! });
    const theirCopy = await signing().signedDocument.query({ sessionToken: theirView.sessionToken! });
    expect(mineCopy.sha256).toBe(sha256Hex(await storedSignedPdf(mine.id)));
    expect(theirCopy.sha256).toBe(sha256Hex(await storedSignedPdf(theirs.id)));
    expect(mineCopy.sha256).not.toBe(theirCopy.sha256);
    // The same patient's unsigned request has no copy, even in the same organization.
    expect(await signing().signedDocument.query({ sessionToken: unsignedView.sessionToken! })).toMatchObject({
      state: "ready",
      base64: null,
    });
    await expect(signing().signedDocument.query({ sessionToken: "z".repeat(43) })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    await expect(signing().status.query({ sessionToken: "z".repeat(43) })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    // The signing link is not a session token.
    await expect(signing().signedDocument.query({ sessionToken: mine.token })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });
});

describe("the signer's copy where the organization requires A4 verification", () => {
  let strict: TestOrg;
  beforeAll(async () => {
    strict = await api.createOrg("Klinik Streng");
  });

  const hs256 = (sub: string) =>
    new SignJWT({ sub })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 300)
      .sign(new TextEncoder().encode(SECRET));
  const verify = async (patientId: string, signatureId: string) =>
    api.request("POST", "/signature-requests/verify-session", {
      headers: bearer(strict),
      body: { patient_id: patientId, signature_id: signatureId, session_token: await hs256(patientId) },
    });

  it("the bare link gives nothing; an A4 ticket opens the copy while the period lasts, and not after", async () => {
    const request = await signedRequest(strict, "P-strict-copy");
    await updateOrganizationSettings(strict.ctx, {
      sessionMethod: "hs256",
      sessionJwtSecret: SECRET,
      requireSessionVerification: true,
    });

    expect(await signing().open.mutate({ token: request.token })).toMatchObject({
      state: "verification_required",
      sessionToken: null,
      signedCopy: null,
    });
    const verified = await verify("P-strict-copy", request.id);
    expect(verified.body).toMatchObject({
      valid: true,
      redirect_url: expect.stringMatching(/^https:\/\/portal\.test\/sign\/ticket\//),
    });
    const view = await signing().open.mutate({ ticket: verified.body.redirect_url.split("/").pop() });
    expect(view).toMatchObject({ state: "completed", signedCopy: "available", sessionToken: expect.any(String) });
    const copy = await signing().signedDocument.query({ sessionToken: view.sessionToken! });
    expect(copy.sha256).toBe(sha256Hex(await storedSignedPdf(request.id)));

    // Another patient's token does not get a ticket for this copy.
    expect((await verify("P-someone-else", request.id)).body).toMatchObject({ valid: false, redirect_url: null });

    await signedDaysAgo(request.id, 31);
    expect((await verify("P-strict-copy", request.id)).body).toMatchObject({ valid: false, redirect_url: null });
    await expect(signing().signedDocument.query({ sessionToken: view.sessionToken! })).rejects.toMatchObject({
      data: { details: { reason: "signed_copy_expired" } },
    });
  });
});
