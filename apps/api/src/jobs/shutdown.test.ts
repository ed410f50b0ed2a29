import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, jobs, signatureRequests, sql, type Database } from "@clinsign/db";
import { SEAL_JOB } from "../core/signatures/seal";
import { WEBHOOK_JOB } from "../core/webhooks/webhooks";
import {
  cliJson,
  freePort,
  killApiProcess,
  processApi,
  processEnvironment,
  signalApiProcess,
  startApiProcess,
  waitFor,
} from "../testing/api-process";
import { startTestPki, type TestPki } from "../testing/pki";
import { startReceiver, type Receiver } from "../testing/receiver";
import {
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../testing/signature-fixtures";

/**
 * Issue 36: a shutdown loses nothing. SIGTERM lets in-flight work finish within the deadline and
 * hands back what is still running; a process killed outright leaves its job to another instance,
 * which runs it once more — and only once. Two instances side by side need PostgreSQL.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const dataDir = mkdtempSync(join(tmpdir(), "clinsign-shutdown-"));
let database: (Database & { url?: string }) | undefined;
let receiver: Receiver;
let env: Record<string, string>;
let org: { orgId: string; token: string };
const running: ChildProcess[] = [];

async function start(extra: Record<string, string> = {}) {
  const port = await freePort();
  const child = await startApiProcess({ ...env, ...extra }, port);
  running.push(child);
  return { child, ...processApi(port) };
}

/** Sends a webhook event through `api`; the answer, or "cut" when the connection was closed under it. */
function sendEvent(api: { baseUrl: string }, templateIdentifier: string) {
  return fetch(`${api.baseUrl}/api/embed/webhook-event`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...org, templateIdentifier, event: "form.opened", data: { n: 1 } }),
  }).then(
    (res) => res.json() as Promise<unknown>,
    () => "cut" as const,
  );
}

/** The delivery log of one template's events, through `api`. */
async function deliveryLog(api: ReturnType<typeof processApi>, templateIdentifier: string) {
  const query = new URLSearchParams({ token: org.token, orgId: org.orgId, templateIdentifier });
  const { body } = await api.request("GET", `/api/embed/webhook-events?${query}`);
  return (body as { events: { attempt: number; delivered: boolean; statusCode: number | null }[] }).events.map(
    ({ attempt, delivered, statusCode }) => ({ attempt, delivered, statusCode }),
  );
}

async function newTemplate(api: ReturnType<typeof processApi>): Promise<string> {
  const { body } = await api.request("POST", "/api/embed/templates", {
    body: { ...org, title: `Shutdown ${randomBytes(3).toString("hex")}`, status: "active" },
  });
  return (body as { template: { identifier: string } }).template.identifier;
}

beforeAll(async () => {
  receiver = await startReceiver();
  ({ env, database } = await processEnvironment(dataDir, {
    ALLOW_INSECURE_HTTP: "true",
    PAGE_IMAGES: "false",
    OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
  }));
  const created = await cliJson(env, "org", "create", "--name", "Shutdown Klinik");
  org = { orgId: created.orgId!, token: created.token! };
  await cliJson(env, "org", "configure", "--org", org.orgId, "--webhook-url", `${receiver.url}/hook`);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => killApiProcess(child)));
  receiver.requests.length = 0;
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("SIGTERM", () => {
  it("lets a request that is delivering a webhook finish, then exits", async () => {
    const api = await start({ SHUTDOWN_DEADLINE_SECONDS: "15" });
    const template = await newTemplate(api);
    receiver.respond = () => ({ status: 200, body: "ok", delayMs: 1500 });
    const answer = sendEvent(api, template);
    await waitFor(() => receiver.requests.length === 1, 10_000);

    const stopped = signalApiProcess(api.child, "SIGTERM");
    expect(await answer).toEqual({ ok: true, delivered: true });
    expect((await stopped).code).toBe(0);
    const again = await fetch(`${api.baseUrl}/healthz`).then(
      () => "up",
      () => "down",
    );
    expect(again).toBe("down");
    expect(receiver.requests).toHaveLength(1);
  }, 60_000);

  it("past its deadline cuts the request and hands the running job back, which the next instance takes at once", async () => {
    const first = await start({ SHUTDOWN_DEADLINE_SECONDS: "1" });
    const template = await newTemplate(first);
    // The first delivery hangs far longer than the deadline (and than the job's 60 s lease).
    receiver.respond = (_req, index) => (index === 0 ? { status: 200, delayMs: 120_000 } : { status: 200 });
    const answer = sendEvent(first, template);
    await waitFor(() => receiver.requests.length === 1, 10_000);

    const { code, ms } = await signalApiProcess(first.child, "SIGTERM");
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(await answer).toBe("cut");

    // Handed back: due now, its cut attempt not counted. Kept leased, it would wait 60 s.
    const next = await start();
    await waitFor(() => receiver.requests.length >= 2, 20_000);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]);
    await waitFor(async () => (await deliveryLog(next, template)).length > 0, 10_000);
    expect(await deliveryLog(next, template)).toEqual([{ attempt: 1, delivered: true, statusCode: 200 }]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(receiver.requests).toHaveLength(2);
  }, 90_000);
});

describe.skipIf(!onPostgres)("two instances on PostgreSQL, one killed with SIGKILL", () => {
  let pki: TestPki;
  let files: FileServer;
  beforeAll(async () => {
    [pki, files] = await Promise.all([startTestPki(), startFileServer()]);
  });
  afterAll(async () => {
    await Promise.all([pki?.close(), files?.close()]);
  });

  /** Moves the end of every running lease into the past: as if the dead process's leases had run out. */
  const leasesRunOut = () =>
    database!.db
      .update(jobs)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(eq(jobs.status, "running"));

  it("mid-webhook: the other instance delivers it once more, and only once", async () => {
    const [doomed, survivor] = await Promise.all([start(), start()]);
    const template = await newTemplate(doomed);
    receiver.respond = (_req, index) => (index === 0 ? { status: 200, delayMs: 120_000 } : { status: 200 });
    void sendEvent(doomed, template);
    await waitFor(() => receiver.requests.length === 1, 10_000);
    await killApiProcess(doomed.child);

    await leasesRunOut();
    await waitFor(() => receiver.requests.length >= 2, 20_000);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]);
    await waitFor(async () => (await deliveryLog(survivor, template)).length > 0, 10_000);
    // The attempt the killed process made is counted (it may have reached the receiver), and logged by nobody.
    expect(await deliveryLog(survivor, template)).toEqual([{ attempt: 2, delivered: true, statusCode: 200 }]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.requests).toHaveLength(2);
    const webhookJobs = await database!.db.select().from(jobs).where(eq(jobs.kind, WEBHOOK_JOB));
    expect(webhookJobs.map(({ status, attempts }) => ({ status, attempts }))).toContainEqual({
      status: "done",
      attempts: 2,
    });
  }, 90_000);

  it("mid-seal (waiting for the time stamp): the other instance seals it once", async () => {
    const sealing = pki.env({
      TSA_TIMEOUT_SECONDS: "60",
      OUTBOUND_ALLOW_HOSTS: [env.OUTBOUND_ALLOW_HOSTS, pki.hostPort, files.hostPort].join(","),
    });
    const [doomed, survivor] = await Promise.all([start(sealing), start(sealing)]);
    const documentId = await registerDocument(doomed, files, org);
    const request = await requestSignature(doomed, org, documentId);
    const signing = doomed.trpc({}).signing;
    const view = await signing.open.mutate({ token: request.token });
    pki.tsaMode = "slow";
    pki.slowMs = 120_000;
    const tsaCalls = () => pki.requests.filter((r) => r.path === "/tsa").length;
    const before = tsaCalls();
    void signing.sign
      .mutate({
        sessionToken: view.sessionToken!,
        consent: true,
        signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
      })
      .catch(() => "cut");
    await waitFor(() => tsaCalls() > before, 30_000);
    await killApiProcess(doomed.child);
    pki.tsaMode = "ok";

    // The seal job is the safety net, due 30 s after the signature: bring that moment forward.
    await database!.db
      .update(jobs)
      .set({ runAt: sql`now()` })
      .where(eq(jobs.kind, SEAL_JOB));
    const statusOf = async () =>
      (await database!.db.select().from(signatureRequests).where(eq(signatureRequests.id, request.id)))[0]!.status;
    await waitFor(async () => (await statusOf()) === "completed", 60_000);

    const completions = await database!.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} = 'signature.completed' and ${auditLog.metadata}->>'signatureId' = ${request.id}`);
    expect(completions).toHaveLength(1);
    const [sealJob] = await database!.db.select().from(jobs).where(eq(jobs.kind, SEAL_JOB));
    expect({ status: sealJob!.status, attempts: sealJob!.attempts }).toEqual({ status: "done", attempts: 1 });
    const pdf = await fetch(`${survivor.baseUrl}/signature-requests/${request.id}/signed.pdf`, {
      headers: { authorization: `Bearer ${org.token}` },
    });
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).includes("/ByteRange")).toBe(true);
  }, 120_000);
});
