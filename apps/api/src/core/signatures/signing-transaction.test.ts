import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, jobs, signatureRequests, sql } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { afterCommit, contextFor, inTransaction, type OrgContext } from "../context";
import { SEAL_JOB } from "./seal";
import { signRequest } from "./sign";

/**
 * `signRequest` composes: inside a caller's transaction its inline seal waits for that
 * transaction's commit, and a rollback takes the signature, the seal job and the seal with it.
 */

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let documentId: string;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Transaktion");
  documentId = await registerDocument(api, files, org, {
    fields: { page: 1, x: 60, y: 650, width: 240, height: 80 },
  });
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

/** An opened request and the signer's context for it, as `signerProcedure` builds it. */
async function openedRequest(patientId: string): Promise<{ id: string; ctx: OrgContext; sessionToken: string }> {
  const request = await requestSignature(api, org, documentId, patientId);
  const view = await api.trpc({}).signing.open.mutate({ token: request.token });
  expect(view.state).toBe("ready");
  const ctx = contextFor(
    api.services,
    { kind: "signer", organizationId: org.orgId, signatureRequestId: request.id },
    { requestId: `test-${patientId}`, ip: "203.0.113.9", userAgent: "vitest" },
  );
  return { id: request.id, ctx, sessionToken: view.sessionToken! };
}

const statusOf = async (id: string) =>
  (await org.ctx.scope.select(signatureRequests, eq(signatureRequests.id, id)).limit(1))[0]!.status;

const sealJobsOf = (id: string) =>
  org.ctx.scope.select(jobs, and(eq(jobs.kind, SEAL_JOB), sql`${jobs.payload}->>'signatureId' = ${id}`));

describe("after-commit effects", () => {
  it("run once the outermost transaction commits, in order, and never after a rollback", async () => {
    const ran: string[] = [];
    await inTransaction(org.ctx, async (tx) => {
      await afterCommit(tx, "first", () => void ran.push("first"));
      await inTransaction(tx, async (inner) => afterCommit(inner, "nested", () => void ran.push("nested")));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["first", "nested"]);
    ran.length = 0;
    await expect(
      inTransaction(org.ctx, async (tx) => {
        await afterCommit(tx, "lost", () => void ran.push("lost"));
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(ran).toEqual([]);
  });
});

describe("signRequest in a caller's transaction", () => {
  it("runs no after-commit effect when the transaction rolls back: no signature, no seal job, no seal", async () => {
    const { id, ctx, sessionToken } = await openedRequest("P-rollback");
    const rollback = new Error("the caller's transaction fails after signing");
    await expect(
      inTransaction(ctx, async (tx) => {
        expect(
          await signRequest(tx, { sessionToken, consent: true, signature: { kind: "typed", name: "Erika Muster" } }),
        ).toEqual({ state: "sealing" });
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    // The inline seal would have completed it (the request stayed `opened` through its commit).
    expect(await statusOf(id)).toBe("opened");
    expect(await sealJobsOf(id)).toHaveLength(0);
  });

  it("seals once the caller's transaction commits, not before", async () => {
    const { id, ctx, sessionToken } = await openedRequest("P-commit");
    const seenInside: string[] = [];
    await inTransaction(ctx, async (tx) => {
      const result = await signRequest(tx, {
        sessionToken,
        consent: true,
        signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
      });
      // The seal is an effect of the outermost transaction, which is still open here.
      expect(result).toEqual({ state: "sealing" });
      seenInside.push((await tx.scope.select(signatureRequests, eq(signatureRequests.id, id)).limit(1))[0]!.status);
    });
    expect(seenInside).toEqual(["sealing"]);
    expect(await statusOf(id)).toBe("completed");
    expect(await sealJobsOf(id)).toHaveLength(1);
  });
});
