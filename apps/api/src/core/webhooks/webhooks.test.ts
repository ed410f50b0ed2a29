import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { and, auditLog, eq, formSessions, jobs, webhookAttempts, webhookDeliveries } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { claimDueJobs } from "../jobs/queue";
import { rotateWebhookSecret, updateOrganizationSettings } from "../organizations/organizations";
import { inTransaction } from "../context";
import { deliverAfterCommit, emitWebhookEvent, WEBHOOK_JOB, WEBHOOK_SCHEDULE_MS } from "./webhooks";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let receiver: Receiver;
let secret: string;

beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  secret = (await rotateWebhookSecret(org.ctx)).secret;
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/org-hook`] });
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});
beforeEach(async () => {
  // Each test sees only its own jobs: retries left over from earlier tests wait for tomorrow.
  await api.services.db
    .update(jobs)
    .set({ runAt: new Date(Date.now() + 86_400_000) })
    .where(eq(jobs.status, "pending"));
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200, body: "ok" });
});

const runner = () => new JobRunner(api.services, jobHandlers);
/** Lets time pass for one organization's waiting webhook jobs. */
const makeDue = (orgId: string) =>
  api.services.db
    .update(jobs)
    .set({ runAt: new Date(Date.now() - 1000) })
    .where(and(eq(jobs.organizationId, orgId), eq(jobs.status, "pending")));
const testEvent = (o: TestOrg, templateIdentifier: string, extra: Record<string, unknown> = {}) =>
  api.request("POST", "/api/embed/webhook-event", {
    body: { ...creds(o), templateIdentifier, event: "form.opened", ...extra },
  });

describe("F11 POST /api/embed/webhook-event", () => {
  it("delivers a signed test event: X-Service-Signature and Standard Webhooks headers verify", async () => {
    const t = await activeTemplate(org);
    const res = await testEvent(org, t.identifier, { data: { hello: "world" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, delivered: true });
    expect(receiver.requests).toHaveLength(1);
    const received = receiver.requests[0]!;
    expect(received.path).toBe("/org-hook");
    const payload = JSON.parse(received.body);
    expect(payload).toEqual({
      event: "form.opened",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      organizationId: org.orgId,
      templateIdentifier: t.identifier,
      data: { hello: "world", test: true },
    });
    expect(received.headers["x-service-signature"]).toBe(
      createHmac("sha256", secret).update(received.body).digest("hex"),
    );
    // The generated secret is in Standard Webhooks format: the library takes it as it is.
    const verified = new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
    expect(verified).toEqual(payload);
    const [delivery] = await api.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, String(received.headers["webhook-id"])));
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("omits the signatures when no secret is configured, and answers delivered:false without URLs", async () => {
    const plain = await api.createOrg("Unsigned");
    const t = await activeTemplate(plain);
    expect((await testEvent(plain, t.identifier)).body).toEqual({ ok: true, delivered: false });
    expect(receiver.requests).toHaveLength(0);
    await updateOrganizationSettings(plain.ctx, { webhookUrls: [`${receiver.url}/plain`] });
    expect((await testEvent(plain, t.identifier)).body.delivered).toBe(true);
    expect(receiver.requests[0]!.headers["x-service-signature"]).toBeUndefined();
    expect(receiver.requests[0]!.headers["webhook-id"]).toBeTruthy();
  });

  it("validates the event, answers 404 for a foreign template and 401 for bad credentials", async () => {
    const t = await activeTemplate(org);
    const bad = await testEvent(org, t.identifier, { event: "form.submitted" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("event");
    expect((await testEvent(org, t.identifier, { data: "x" })).status).toBe(400);
    expect(
      (await api.request("POST", "/api/embed/webhook-event", { body: { ...creds(org), event: "form.opened" } })).status,
    ).toBe(400);
    expect((await testEvent(other, t.identifier)).status).toBe(404);
    expect(
      (
        await api.request("POST", "/api/embed/webhook-event", {
          body: { token: "cs_x", orgId: org.orgId, templateIdentifier: t.identifier, event: "form.opened" },
        })
      ).status,
    ).toBe(401);
  });
});

describe("delivery attempts and retries", () => {
  it("a receiver that fails twice then succeeds: three attempts logged, exactly one success", async () => {
    const t = await activeTemplate(org);
    receiver.respond = (_req, i) => (i < 2 ? { status: 500, body: "down" } : { status: 204 });
    const res = await testEvent(org, t.identifier);
    expect(res.body.delivered).toBe(false);
    const [job] = await api.services.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.organizationId, org.orgId), eq(jobs.kind, WEBHOOK_JOB), eq(jobs.status, "pending")));
    // Second attempt after about 5 s (jittered), not at once.
    const wait = job!.runAt.getTime() - Date.now();
    expect(wait).toBeGreaterThan(WEBHOOK_SCHEDULE_MS[1]! * 0.7);
    expect(wait).toBeLessThan(WEBHOOK_SCHEDULE_MS[1]! * 1.3);
    expect(await runner().runDue()).toBe(0);
    await makeDue(org.orgId);
    await runner().runDue();
    await makeDue(org.orgId);
    await runner().runDue();
    await makeDue(org.orgId);
    expect(await runner().runDue()).toBe(0);
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    const log = await api.request(
      "GET",
      `/api/embed/webhook-events?${query({ ...creds(org), templateIdentifier: t.identifier })}`,
    );
    expect(
      log.body.events.map((e: { attempt: number; delivered: boolean; statusCode: number }) => [
        e.attempt,
        e.delivered,
        e.statusCode,
      ]),
    ).toEqual([
      [3, true, 204],
      [2, false, 500],
      [1, false, 500],
    ]);
    expect(log.body.events[2]).toMatchObject({
      eventType: "form.opened",
      webhookUrl: `${receiver.url}/org-hook`,
      errorMessage: "HTTP 500",
      durationMs: expect.any(Number),
    });
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    const t = await activeTemplate(org);
    receiver.respond = () => ({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    expect((await testEvent(org, t.identifier)).body.delivered).toBe(false);
    expect(receiver.requests.map((r) => r.path)).toEqual(["/org-hook"]);
    const [row] = await api.services.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.templateIdentifier, t.identifier));
    expect(row).toMatchObject({
      delivered: false,
      statusCode: 302,
      errorMessage: "redirects are not followed (HTTP 302)",
    });
  });

  it("treats a receiver slower than the timeout as a failure", async () => {
    const t = await activeTemplate(org);
    receiver.respond = () => ({ status: 200, delayMs: 6000 });
    const started = Date.now();
    expect((await testEvent(org, t.identifier)).body.delivered).toBe(false);
    expect(Date.now() - started).toBeLessThan(5900);
    const [row] = await api.services.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.templateIdentifier, t.identifier));
    expect(row!.errorMessage).toMatch(/^timeout/);
  }, 15_000);

  it("refuses and logs a loopback URL that is not allow-listed", async () => {
    const guarded = await api.createOrg("Guarded");
    const t = await activeTemplate(guarded);
    // Creating a session refuses such a URL now (embed-sessions.test.ts); one stored before that
    // rule, or a name that resolves to a private address only later, is refused at delivery.
    const sessionId = await newSession(api, guarded, t.identifier);
    await api.services.db
      .update(formSessions)
      .set({ config: { webhookUrl: `https://127.0.0.1:${receiver.port + 1}/hook` } })
      .where(eq(formSessions.organizationId, guarded.orgId));
    await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.opened" } });
    await runner().runDue();
    expect(receiver.requests).toHaveLength(0);
    const log = await api.request("GET", `/api/embed/webhook-events?${query(creds(guarded))}`);
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({
      delivered: false,
      statusCode: null,
      errorMessage: expect.stringContaining("blocked_address"),
    });
  });

  it("a job leased by a worker that died is delivered by a fresh runner on the same database", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.closed" } });
    // A worker claims the job and dies before finishing (no completion is ever written).
    const claimed = await claimDueJobs(api.services.db, [WEBHOOK_JOB], 10, 60);
    expect(claimed).toHaveLength(1);
    expect(await runner().runDue()).toBe(0); // still leased
    await api.services.db
      .update(jobs)
      .set({ lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, claimed[0]!.id));
    expect(await runner().runDue()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0]!.body).event).toBe("form.closed");
    const [row] = await api.services.db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.templateIdentifier, t.identifier));
    expect(row).toMatchObject({ attempt: 2, delivered: true });
  });
});

describe("POST /api/embed/events", () => {
  it("records form.opened and form.closed from a session, with audit entries and webhooks", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier, {
      webhookUrl: `${receiver.url}/session-hook`,
      rnummer: "R-1",
    });
    expect(
      (await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.opened" } })).body,
    ).toEqual({ ok: true });
    expect(
      (
        await api.request("POST", "/api/embed/events", {
          body: { sessionId, event: "form.closed", data: { reason: "tab" } },
        })
      ).status,
    ).toBe(200);
    expect(
      (await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.submitted" } })).status,
    ).toBe(400);
    expect(
      (await api.request("POST", "/api/embed/events", { body: { sessionId: "fs_bad", event: "form.opened" } })).status,
    ).toBe(401);
    await runner().runDue();
    // One batch delivers in parallel, so arrival order is not fixed.
    const received = receiver.requests.map((r) => [r.path, JSON.parse(r.body).event, JSON.parse(r.body).data]);
    expect(received.sort((x, y) => String(x[1]).localeCompare(String(y[1])))).toEqual([
      ["/session-hook", "form.closed", { rnummer: "R-1", untrustedClientData: { reason: "tab" } }],
      ["/session-hook", "form.opened", { rnummer: "R-1" }],
    ]);
    const actions = await api.services.db
      .select({ action: auditLog.action, actorType: auditLog.actorType })
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.templateIdentifier, t.identifier)))
      .orderBy(auditLog.seq);
    expect(actions.map((a) => a.action)).toEqual([
      "template.created",
      "config.updated",
      "form.opened",
      "webhook.dispatched",
      "form.closed",
      "webhook.dispatched",
    ]);
    expect(actions[2]!.actorType).toBe("embed_session");
  });

  it("never lets the browser's data into the signed fields: it arrives only under untrustedClientData", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier, {
      webhookUrl: `${receiver.url}/forged`,
      rnummer: "R-TRUE",
    });
    const forged = {
      rnummer: "R-FORGED",
      submissionId: "00000000-0000-4000-8000-000000000000",
      values: { diagnosis: "none" },
      test: true,
    };
    expect(
      (await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.opened", data: forged } }))
        .status,
    ).toBe(200);
    // Without a session rnummer nothing trusted is there to keep, and still nothing is merged.
    const bare = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/forged` });
    expect(
      (
        await api.request("POST", "/api/embed/events", {
          body: { sessionId: bare, event: "form.closed", data: forged },
        })
      ).status,
    ).toBe(200);
    await runner().runDue();
    const bodies = receiver.requests
      .map((r) => JSON.parse(r.body))
      .sort((a, b) => String(a.event).localeCompare(String(b.event)));
    expect(bodies.map((b) => b.data)).toEqual([
      { untrustedClientData: forged },
      { rnummer: "R-TRUE", untrustedClientData: forged },
    ]);
  });

  it("caps the browser's data at 2 KiB and a session at 20 events per 10 minutes (429 with Retry-After)", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    const big = await api.request("POST", "/api/embed/events", {
      body: { sessionId, event: "form.opened", data: { note: "x".repeat(2100) } },
    });
    expect(big.status).toBe(400);
    expect(big.body.fieldErrors[0].key).toBe("data");
    expect(
      (
        await api.request("POST", "/api/embed/events", {
          body: { sessionId, event: "form.opened", data: { note: "x".repeat(2000) } },
        })
      ).status,
    ).toBe(200);
    for (let i = 2; i <= 20; i++)
      expect(
        (await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.closed" } })).status,
      ).toBe(200);
    const limited = await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.closed" } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Over tRPC (the embedded form's own door) the same session is refused too, and nothing more was recorded.
    await expect(api.trpc({ sessionId }).forms.event.mutate({ event: "form.opened" })).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
    const recorded = await api.services.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.templateIdentifier, t.identifier)));
    expect(recorded.filter((a) => a.action === "form.opened" || a.action === "form.closed")).toHaveLength(20);
  });
});

describe("F12 GET /api/embed/webhook-events", () => {
  it("filters by eventType and templateIdentifier, limits to 50 by default and 200 at most", async () => {
    const busy = await api.createOrg("Busy");
    await updateOrganizationSettings(busy.ctx, { webhookUrls: [`${receiver.url}/busy`] });
    const a = await activeTemplate(busy);
    const b = await activeTemplate(busy, undefined, "B");
    for (let i = 0; i < 52; i++) await testEvent(busy, a.identifier);
    await testEvent(busy, b.identifier, { event: "form.closed" });
    const all = await api.request("GET", `/api/embed/webhook-events?${query(creds(busy))}`);
    expect(all.status).toBe(200);
    expect(all.body.events).toHaveLength(50);
    expect(all.body.events[0]).toMatchObject({
      eventType: "form.closed",
      templateIdentifier: b.identifier,
      delivered: true,
      statusCode: 200,
      errorMessage: null,
    });
    expect(Object.keys(all.body.events[0]).sort()).toEqual([
      "attempt",
      "createdAt",
      "delivered",
      "deliveryId",
      "durationMs",
      "errorMessage",
      "eventType",
      "id",
      "statusCode",
      "templateIdentifier",
      "webhookUrl",
    ]);
    expect(
      (await api.request("GET", `/api/embed/webhook-events?${query({ ...creds(busy), limit: 200 })}`)).body.events,
    ).toHaveLength(53);
    expect(
      (await api.request("GET", `/api/embed/webhook-events?${query({ ...creds(busy), eventType: "form.closed" })}`))
        .body.events,
    ).toHaveLength(1);
    expect(
      (
        await api.request(
          "GET",
          `/api/embed/webhook-events?${query({ ...creds(busy), templateIdentifier: a.identifier, limit: 3 })}`,
        )
      ).body.events,
    ).toHaveLength(3);
    for (const limit of ["201", "0", "1.5", "x"]) {
      const res = await api.request("GET", `/api/embed/webhook-events?${query({ ...creds(busy), limit })}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.fieldErrors[0].key).toBe("limit");
    }
    expect((await api.request("GET", `/api/embed/webhook-events?${query(creds(other))}`)).body.events).toEqual([]);
    expect(
      (await api.request("GET", `/api/embed/webhook-events?${query({ token: other.token, orgId: busy.orgId })}`))
        .status,
    ).toBe(401);
  });

  it("is the same list over tRPC, and staff can resend a logged event", async () => {
    const t = await activeTemplate(org);
    receiver.respond = () => ({ status: 500 });
    await testEvent(org, t.identifier);
    const [entry] = await api.trpc({ bearer: org.token }).webhooks.log.query({ templateIdentifier: t.identifier });
    expect(entry).toMatchObject({ delivered: false, statusCode: 500 });
    receiver.respond = () => ({ status: 200 });
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const resent = await api.trpc({ cookie }).webhooks.resend.mutate({ deliveryId: entry!.deliveryId });
    expect(resent.delivered).toBe(true);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
    await expect(
      api.trpc({ bearer: other.token }).webhooks.log.query({ templateIdentifier: t.identifier }),
    ).resolves.toEqual([]);
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    await expect(
      api.trpc({ cookie: otherCookie }).webhooks.resend.mutate({ deliveryId: entry!.deliveryId }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
  });
});

describe("the first attempt of an inline delivery", () => {
  it("runs once the outermost transaction has committed, and never when it rolls back", async () => {
    const t = await activeTemplate(org);
    const emit = (tx: typeof org.ctx) =>
      emitWebhookEvent(tx, { event: "form.opened", templateIdentifier: t.identifier, data: { n: 1 }, inline: true });
    const seenInside: number[] = [];
    const first = await inTransaction(org.ctx, async (outer) =>
      inTransaction(outer, async (inner) => {
        const attempt = await deliverAfterCommit(inner, await emit(inner));
        seenInside.push(receiver.requests.length);
        return attempt;
      }),
    );
    expect(seenInside).toEqual([0]);
    expect(first.delivered).toBe(true);
    expect(receiver.requests).toHaveLength(1);

    receiver.requests.length = 0;
    let undelivered: { delivered: boolean } | undefined;
    await expect(
      inTransaction(org.ctx, async (tx) => {
        undelivered = await deliverAfterCommit(tx, await emit(tx));
        throw new Error("the change fails after queueing");
      }),
    ).rejects.toThrow("the change fails");
    expect(undelivered).toEqual({ delivered: false });
    expect(receiver.requests).toHaveLength(0);
  });
});
