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
import { startReceiver, type Receiver } from "../testing/receiver";

const dataDir = mkdtempSync(join(tmpdir(), "clinsign-restart-"));
let database: (Database & { url?: string }) | undefined;
let receiver: Receiver;
let env: Record<string, string>;
let server: ChildProcess | undefined;

beforeAll(async () => {
  receiver = await startReceiver();
  ({ env, database } = await processEnvironment(dataDir, { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` }));
});
afterAll(async () => {
  server?.kill("SIGKILL");
  await receiver?.close();
  await database?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("webhook deliveries survive the API process", () => {
  it("delivers after the process is killed between attempts and started again", async () => {
    const cli = (...args: string[]) => cliJson(env, ...args);
    const { orgId, token } = await cli("org", "create", "--name", "Restart Klinik");
    await cli("org", "configure", "--org", orgId!, "--webhook-url", `${receiver.url}/hook`);

    // The first attempt fails; every later one succeeds.
    receiver.respond = (_req, index) => (index === 0 ? { status: 500, body: "down" } : { status: 200, body: "ok" });
    const port = await freePort();
    server = await startApiProcess(env, port);
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, orgId, ...body }),
      });
    const created = (await (await post("/api/embed/templates", { title: "Restart", status: "active" })).json()) as {
      template: { identifier: string };
    };
    const sent = await post("/api/embed/webhook-event", {
      templateIdentifier: created.template.identifier,
      event: "form.opened",
      data: { n: 1 },
    });
    const answer = await sent.json();
    expect(answer, JSON.stringify(answer)).toEqual({ ok: true, delivered: false });
    expect(receiver.requests).toHaveLength(1);

    // Killed without a chance to clean up, before the retry (due about 5 s later) runs.
    await killApiProcess(server);
    // Nothing answers any more: the next answers come from a new process.
    expect(
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
    expect(receiver.requests).toHaveLength(1);

    server = await startApiProcess(env, port);
    await waitFor(() => receiver.requests.length >= 2, 30_000);
    // The attempt's log row is written after the receiver has answered: read until it is there.
    type LoggedAttempt = { attempt: number; delivered: boolean; statusCode: number | null };
    let attempts: LoggedAttempt[] = [];
    const deadline = Date.now() + 10_000;
    do {
      const log = await fetch(`http://127.0.0.1:${port}/api/embed/webhook-events?token=${token}&orgId=${orgId}`).then(
        (r) => r.json() as Promise<{ events: LoggedAttempt[] }>,
      );
      attempts = log.events
        .map(({ attempt, delivered, statusCode }) => ({ attempt, delivered, statusCode }))
        .sort((a, b) => a.attempt - b.attempt);
      if (attempts.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    expect(attempts).toEqual([
      { attempt: 1, delivered: false, statusCode: 500 },
      { attempt: 2, delivered: true, statusCode: 200 },
    ]);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]);
  }, 90_000);
});
