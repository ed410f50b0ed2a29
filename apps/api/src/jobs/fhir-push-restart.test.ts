import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@clinsign/db";
import {
  cliJson,
  freePort,
  killApiProcess,
  processEnvironment,
  startApiProcess,
  waitFor,
} from "../testing/api-process";
import { startFhirServer, type TestFhirServer } from "../testing/fhir-server";

/**
 * Issue 34: an API process killed while the hospital's server is taking a Bundle. The server has
 * stored it, but its answer never reaches ClinSign; the next process takes the job when its lease
 * runs out, sends the same Bundle, and the server still holds each resource once.
 */

const dataDir = mkdtempSync(join(tmpdir(), "clinsign-fhir-restart-"));
let database: (Database & { url?: string }) | undefined;
let fhir: TestFhirServer;
let env: Record<string, string>;
let server: ChildProcess | undefined;

beforeAll(async () => {
  fhir = await startFhirServer();
  ({ env, database } = await processEnvironment(dataDir, {
    OUTBOUND_ALLOW_HOSTS: fhir.hostPort,
    // The attempt waits 10 s for an answer; its lease is 2 × 10 + 10 = 30 s.
    FHIR_PUSH_TIMEOUT_SECONDS: "10",
  }));
});
afterAll(async () => {
  if (server) await killApiProcess(server);
  await fhir?.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("a FHIR push cut by a killed process", () => {
  it("is finished by the next process, and the hospital holds each resource once", async () => {
    const { orgId, token } = await cliJson(env, "org", "create", "--name", "Klinikum Neustart");
    await cliJson(env, "fhir-push", "set", "--org", orgId!, "--base-url", fhir.baseUrl);
    // The first transaction is stored by the server, and its answer withheld.
    fhir.failNext("timeout", 1);

    const port = await freePort();
    server = await startApiProcess(env, port);
    /** The clinic's calls carry its token; the patient's submit carries only the session. */
    const post = async (path: string, body: Record<string, unknown>, asClinic = true) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(asClinic ? { token, orgId, ...body } : body),
      });
      const answer = (await res.json()) as Record<string, unknown>;
      expect(res.ok, `${res.status} ${JSON.stringify(answer)}`).toBe(true);
      return answer;
    };
    const { template } = (await post("/api/embed/templates", { title: "Aufnahme", status: "active" })) as {
      template: { identifier: string };
    };
    const caseNumber = `F-${Date.now()}`;
    const { sessionId } = await post("/api/embed/sessions", {
      templateIdentifier: template.identifier,
      config: { rnummer: caseNumber },
    });
    const { submissionId } = await post("/api/embed/submit", { sessionId, values: {} }, false);

    // Killed while waiting for the answer to a Bundle the server has already stored.
    await waitFor(async () => (await fhir.resources("QuestionnaireResponse")).length > 0, 20_000);
    await killApiProcess(server);
    expect(fhir.received.filter((r) => r.method === "POST")).toHaveLength(1);

    /** The delivery log, as staff read it. */
    const deliveries = async () => {
      const input = encodeURIComponent(JSON.stringify({ limit: 10 }));
      const res = await fetch(`http://127.0.0.1:${port}/trpc/fhirPush.deliveries?input=${input}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { result: { data: { items: Record<string, unknown>[] } } };
      return body.result.data.items;
    };
    server = await startApiProcess(env, port);
    // Until the cut attempt's lease runs out, the log shows it as cut off, and nothing is sent.
    expect(await deliveries()).toEqual([
      expect.objectContaining({ status: "pending", attempts: 1, lastError: expect.stringMatching(/cut off/) }),
    ]);
    await waitFor(() => fhir.received.filter((r) => r.method === "POST").length >= 2, 45_000);
    const posts = fhir.received.filter((r) => r.method === "POST");
    await waitFor(() => posts[1]!.status !== undefined, 10_000);
    expect(posts.map((r) => r.status)).toEqual([undefined, 200]);
    // The same Bundle both times: built once, kept with the delivery.
    expect(JSON.stringify(posts[1]!.body)).toBe(JSON.stringify(posts[0]!.body));
    expect(await fhir.resources("Patient", `identifier=${caseNumber}`)).toHaveLength(1);
    expect(await fhir.resources("QuestionnaireResponse")).toHaveLength(1);
    expect(await fhir.resources("Provenance")).toHaveLength(1);

    // The log says so once the second process has recorded the answer.
    await waitFor(async () => (await deliveries())[0]?.status === "delivered", 10_000);
    expect(await deliveries()).toEqual([
      expect.objectContaining({
        sourceId: submissionId,
        status: "delivered",
        attempts: 2,
        lastStatusCode: 200,
        lastError: null,
      }),
    ]);
  }, 120_000);
});
