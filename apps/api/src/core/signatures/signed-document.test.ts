import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentVersions, eq, jobs, signatureRequests, signingCredentials } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  bearer,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { sha256Hex } from "../crypto";
import { SEAL_JOB } from "./seal";

let api: TestApi;
let files: FileServer;
let org: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik West");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const signing = () => api.trpc({}).signing;
const drawn = () => ({ kind: "drawn" as const, dataUrl: pngDataUrl(makeSignaturePng()) });

async function open(patientId: string) {
  const documentId = await registerDocument(api, files, org);
  const request = await requestSignature(api, org, documentId, patientId);
  const view = await signing().open.mutate({ token: request.token });
  expect(view.state).toBe("ready");
  return { request, documentId, sessionToken: view.sessionToken! };
}

const signedPdfOverRest = async (id: string) => {
  const response = await fetch(`${api.baseUrl}/signature-requests/${id}/signed.pdf`, { headers: bearer(org) });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};

describe("signing.signedDocument", () => {
  it("gives the sealed PDF to the session that signed it, the same bytes A3 serves", async () => {
    const { request, sessionToken } = await open("P-signed-1");
    // Before signing there is nothing to download yet.
    expect(await signing().signedDocument.query({ sessionToken })).toEqual({
      state: "ready",
      contentType: "application/pdf",
      base64: null,
      sha256: null,
    });

    expect(await signing().sign.mutate({ sessionToken, consent: true, signature: drawn() })).toEqual({
      state: "completed",
    });
    const signed = await signing().signedDocument.query({ sessionToken });
    expect(signed).toMatchObject({
      state: "completed",
      contentType: "application/pdf",
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const bytes = Buffer.from(signed.base64!, "base64");
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(sha256Hex(bytes)).toBe(signed.sha256);
    expect(bytes.equals(await signedPdfOverRest(request.id))).toBe(true);
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row!.signedPdfSha256).toBe(signed.sha256);
  });

  it("answers `sealing` without a PDF while the seal is still being made, and the PDF once the job finished", async () => {
    const { request, documentId, sessionToken } = await open("P-signed-2");
    // Storage briefly loses the original: the synchronous seal fails and the job must finish it.
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    const original = (await api.services.storage.get(version!.storageKey))!;
    await api.services.storage.delete(version!.storageKey);
    expect(
      await signing().sign.mutate({
        sessionToken,
        consent: true,
        signature: { kind: "typed", name: "Erika Mustermann" },
      }),
    ).toEqual({ state: "sealing" });
    expect(await signing().signedDocument.query({ sessionToken })).toEqual({
      state: "sealing",
      contentType: "application/pdf",
      base64: null,
      sha256: null,
    });

    const restored = await api.services.storage.put("documents", original);
    await api.services.db
      .update(documentVersions)
      .set({ storageKey: restored.key })
      .where(eq(documentVersions.id, version!.id));
    const job = (await api.services.db.select().from(jobs).where(eq(jobs.kind, SEAL_JOB))).find(
      (j) => j.payload.signatureId === request.id,
    );
    await api.services.db.update(jobs).set({ runAt: new Date() }).where(eq(jobs.id, job!.id));
    await new JobRunner(api.services, jobHandlers).runDue();

    const signed = await signing().signedDocument.query({ sessionToken });
    expect(signed.state).toBe("completed");
    expect(Buffer.from(signed.base64!, "base64").equals(await signedPdfOverRest(request.id))).toBe(true);
  });

  it("tells a declined or expired request's page where it stands, without a PDF", async () => {
    const declined = await open("P-signed-3");
    await signing().decline.mutate({ sessionToken: declined.sessionToken });
    expect(await signing().signedDocument.query({ sessionToken: declined.sessionToken })).toMatchObject({
      state: "declined",
      base64: null,
    });

    const expired = await open("P-signed-4");
    await backdateExpiry(api, expired.request.id);
    // Reading decides: the open request past its expiry is now marked expired.
    expect(await signing().signedDocument.query({ sessionToken: expired.sessionToken })).toMatchObject({
      state: "expired",
      base64: null,
    });
    const [row] = await api.services.db
      .select()
      .from(signatureRequests)
      .where(eq(signatureRequests.id, expired.request.id));
    expect(row!.status).toBe("expired");
  });

  it("needs a live signing session: unknown or ended sessions are 401, and the session never outlives the request", async () => {
    await expect(signing().signedDocument.query({ sessionToken: "q".repeat(43) })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });

    const { request, sessionToken } = await open("P-signed-5");
    await signing().sign.mutate({ sessionToken, consent: true, signature: drawn() });
    const [credential] = await api.services.db
      .select()
      .from(signingCredentials)
      .where(eq(signingCredentials.secretHash, sha256Hex(sessionToken)));
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    // Issued for at most 60 minutes and never beyond the request's expiry.
    expect(credential!.expiresAt.getTime()).toBeLessThanOrEqual(
      Math.min(Date.now() + 60 * 60_000, row!.expiresAt.getTime()),
    );
    expect(credential!.usedAt).toBeNull();

    await api.services.db
      .update(signingCredentials)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(signingCredentials.id, credential!.id));
    await expect(signing().signedDocument.query({ sessionToken })).rejects.toMatchObject({ data: { httpStatus: 401 } });
  });

  it("is not reachable with a ticket or a signing link in place of a session", async () => {
    const documentId = await registerDocument(api, files, org);
    const request = await requestSignature(api, org, documentId, "P-signed-6");
    await expect(signing().signedDocument.query({ sessionToken: request.token })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });
});
