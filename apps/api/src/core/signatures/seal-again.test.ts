import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, documentVersions, eq, jobs, signatureRequests, sql } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { registerDocument, requestSignature, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { SEAL_JOB, SEAL_MAX_ATTEMPTS } from "./seal";

let api: TestApi;
let files: FileServer;
let org: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Ost");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const sealJobWhere = (signatureId: string) =>
  sql`${jobs.kind} = ${SEAL_JOB} and ${jobs.payload}->>'signatureId' = ${signatureId}`;
const sealJobOf = async (signatureId: string) =>
  (await api.services.db.select().from(jobs).where(sealJobWhere(signatureId)))[0]!;

describe("a seal job that keeps failing", () => {
  it("ends as failed after its attempts, staff see it, and sealAgain starts it over", async () => {
    const documentId = await registerDocument(api, files, org);
    const request = await requestSignature(api, org, documentId, "P-seal-again");
    const signing = api.trpc({}).signing;
    const { sessionToken } = await signing.open.mutate({ token: request.token });
    // The stored original no longer matches its SHA-256: every sealing attempt fails.
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    await api.services.db
      .update(documentVersions)
      .set({ sha256: "0".repeat(64) })
      .where(eq(documentVersions.id, version!.id));
    expect(
      await signing.sign.mutate({
        sessionToken: sessionToken!,
        consent: true,
        signature: { kind: "typed", name: "Erika Mustermann" },
      }),
    ).toEqual({ state: "sealing" });

    const runner = new JobRunner(api.services, { [SEAL_JOB]: jobHandlers[SEAL_JOB]! });
    for (let pass = 0; pass < SEAL_MAX_ATTEMPTS + 2; pass++) {
      await api.services.db.execute(sql`update ${jobs} set run_at = now() where ${sealJobWhere(request.id)}`);
      await runner.runDue();
    }
    const job = await sealJobOf(request.id);
    expect(job).toMatchObject({
      status: "failed",
      attempts: SEAL_MAX_ATTEMPTS,
      lastError: expect.stringContaining("SHA-256"),
    });

    const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    expect(await staff.signatures.get.query({ id: request.id })).toMatchObject({
      status: "sealing",
      sealFailed: true,
      sealError: expect.stringContaining("SHA-256"),
    });
    // The job's give-up marks the request, so the staff list finds it under `failed` (by index).
    expect((await staff.signatures.list.query({ status: "failed" })).items.map((i) => i.id)).toEqual([request.id]);
    expect(await staff.signatures.detail.query({ id: request.id })).toMatchObject({
      status: "failed",
      canSealAgain: true,
    });
    // Staff only: an API token is an organization credential, not a person who looked at the error.
    await expect(api.trpc({ bearer: org.token }).signatures.sealAgain.mutate({ id: request.id })).rejects.toMatchObject(
      { data: { httpStatus: 401 } },
    );

    await api.services.db
      .update(documentVersions)
      .set({ sha256: version!.sha256 })
      .where(eq(documentVersions.id, version!.id));
    expect(await staff.signatures.sealAgain.mutate({ id: request.id })).toEqual({ queued: true });
    expect(await sealJobOf(request.id)).toMatchObject({ id: job.id, status: "pending", attempts: 0, lastError: null });
    await runner.runDue();
    expect(await sealJobOf(request.id)).toMatchObject({ status: "done", attempts: 1 });
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id));
    expect(row).toMatchObject({ status: "completed", sealError: null });
    expect(await staff.signatures.get.query({ id: request.id })).toMatchObject({
      status: "completed",
      sealFailed: false,
    });
    expect((await staff.signatures.list.query({ status: "failed" })).items).toEqual([]);
    const entries = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.seal_requeued"));
    expect(entries.map((e) => e.metadata)).toContainEqual(expect.objectContaining({ signatureId: request.id }));

    // A completed request has nothing to seal again.
    await expect(staff.signatures.sealAgain.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
  });
});
