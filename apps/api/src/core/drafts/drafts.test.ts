import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, drafts, eq, jobs, webhookDeliveries } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { updateOrganizationSettings } from "../organizations/organizations";
import { verifyAuditChain } from "../audit/audit";
import { chainOrganizationNow } from "../jobs/audit-chain";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const save = (body: Record<string, unknown>) => api.request("POST", "/api/embed/drafts", { body });
const load = (params: Record<string, string>) => api.request("GET", `/api/embed/drafts?${query(params)}`);

describe("F7 F8 F9 drafts with a sessionId", () => {
  it("saves, merges new keys into stored ones, loads and deletes", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    const first = await save({ sessionId, draftKey: "case-7", values: { name: "Erika", age: 41 } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ok: true, draftKey: "case-7", savedAt: expect.any(String) });
    expect(new Date(first.body.savedAt).toISOString()).toBe(first.body.savedAt);
    await save({ sessionId, draftKey: "case-7", values: { city: "Köln", age: 42 } });

    const loaded = await load({ sessionId, draftKey: "case-7" });
    expect(loaded.status).toBe(200);
    expect(loaded.body).toEqual({
      ok: true,
      draft: {
        id: expect.any(String),
        draftKey: "case-7",
        templateIdentifier: t.identifier,
        values: { name: "Erika", age: 42, city: "Köln" },
        updatedAt: expect.any(String),
      },
    });
    const removed = await api.request("DELETE", "/api/embed/drafts", { body: { sessionId, draftKey: "case-7" } });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true });
    expect((await load({ sessionId, draftKey: "case-7" })).body).toEqual({ ok: true, draft: null });
    const actions = await api.services.db
      .select({ action: auditLog.action, actorType: auditLog.actorType })
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.organizationId, org.orgId)))
      .orderBy(auditLog.seq);
    expect(actions.filter((a) => a.action.startsWith("form."))).toEqual([
      { action: "form.draft_saved", actorType: "embed_session" },
      { action: "form.draft_saved", actorType: "embed_session" },
      { action: "form.draft_deleted", actorType: "embed_session" },
    ]);
  });

  it("uses the session's configured draftKey when the call names none", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier, { draftKey: "from-config" });
    expect((await save({ sessionId, draftKey: "from-config", values: { name: "A" } })).status).toBe(200);
    expect((await load({ sessionId })).body.draft.values).toEqual({ name: "A" });
  });

  it("refuses empty values and saves nothing; requires draftKey; values must be an object", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    for (const values of [{}, { name: "" }, { name: null, list: [] }]) {
      const res = await save({ sessionId, draftKey: "empty", values });
      expect(res.status, JSON.stringify(values)).toBe(400);
      expect(res.body).toMatchObject({
        ok: false,
        fieldErrors: [{ key: "values", message: "must contain at least one value" }],
      });
    }
    expect((await load({ sessionId, draftKey: "empty" })).body.draft).toBeNull();
    expect((await save({ sessionId, values: { a: 1 } })).body).toMatchObject({
      ok: false,
      error: "draftKey: is required",
    });
    expect((await save({ sessionId, draftKey: "x", values: "text" })).status).toBe(400);
    expect((await save({ sessionId, draftKey: "x" })).status).toBe(400);
    expect((await load({ sessionId })).body.error).toBe("draftKey: is required");
  });

  it("answers 401 for a bad or expired session and 403 for another template than the session's", async () => {
    const t = await activeTemplate(org);
    const second = await activeTemplate(org, undefined, "Second");
    const sessionId = await newSession(api, org, t.identifier);
    expect((await save({ sessionId: "fs_bad", draftKey: "k", values: { a: 1 } })).status).toBe(401);
    expect(
      (await save({ sessionId, templateIdentifier: second.identifier, draftKey: "k", values: { a: 1 } })).status,
    ).toBe(403);
    expect(
      (await api.request("DELETE", "/api/embed/drafts", { body: { sessionId: "fs_bad", draftKey: "k" } })).status,
    ).toBe(401);
  });
});

describe("one patient's session never reaches another patient's draft", () => {
  const remove = (body: Record<string, unknown>) => api.request("DELETE", "/api/embed/drafts", { body });
  const submit = (body: Record<string, unknown>) => api.request("POST", "/api/embed/submit", { body });

  it("a session that pins a draftKey refuses any other (F7, F8, F9, F10) with 403", async () => {
    const t = await activeTemplate(org);
    await save({ ...creds(org), templateIdentifier: t.identifier, draftKey: "patient-b", values: { name: "B" } });
    const sessionA = await newSession(api, org, t.identifier, { draftKey: "patient-a" });
    for (const res of [
      await save({ sessionId: sessionA, draftKey: "patient-b", values: { name: "overwritten" } }),
      await load({ sessionId: sessionA, draftKey: "patient-b" }),
      await remove({ sessionId: sessionA, draftKey: "patient-b" }),
      await submit({ sessionId: sessionA, draftKey: "patient-b", values: { name: "A" } }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ ok: false, error: "this session is bound to another draftKey" });
    }
    const theirs = await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "patient-b" });
    expect(theirs.body.draft.values).toEqual({ name: "B" });
    // Its own draftKey, named or not, still works, and a token caller reaches it under the same name.
    expect((await save({ sessionId: sessionA, draftKey: "patient-a", values: { name: "A" } })).status).toBe(200);
    expect(
      (await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "patient-a" })).body.draft.values,
    ).toEqual({ name: "A" });
  });

  it("a session without one keeps the drafts it names in its own namespace, transparently", async () => {
    const t = await activeTemplate(org);
    await save({ ...creds(org), templateIdentifier: t.identifier, draftKey: "abc", values: { name: "token draft" } });
    const [first, second] = [await newSession(api, org, t.identifier), await newSession(api, org, t.identifier)];
    expect((await load({ sessionId: first, draftKey: "abc" })).body.draft).toBeNull();
    expect((await remove({ sessionId: first, draftKey: "abc" })).status).toBe(200);
    const saved = await save({ sessionId: first, draftKey: "abc", values: { name: "first" } });
    expect(saved.body).toEqual({ ok: true, draftKey: "abc", savedAt: expect.any(String) });
    await save({ sessionId: second, draftKey: "abc", values: { name: "second" } });
    const mine = await load({ sessionId: first, draftKey: "abc" });
    expect(mine.body.draft).toMatchObject({ draftKey: "abc", values: { name: "first" } });
    expect((await load({ sessionId: second, draftKey: "abc" })).body.draft.values).toEqual({ name: "second" });
    expect(
      (await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "abc" })).body.draft.values,
    ).toEqual({ name: "token draft" });
    // F10 through the same session and name deletes that session's draft, and only it.
    expect((await submit({ sessionId: first, draftKey: "abc", values: { name: "first" } })).status).toBe(200);
    expect((await load({ sessionId: first, draftKey: "abc" })).body.draft).toBeNull();
    expect((await load({ sessionId: second, draftKey: "abc" })).body.draft.values).toEqual({ name: "second" });
    expect(
      (await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "abc" })).body.draft.values,
    ).toEqual({ name: "token draft" });
  });
});

describe("drafts with token, orgId and templateIdentifier", () => {
  it("works like the session door and keeps organizations apart", async () => {
    const t = await activeTemplate(org);
    const res = await save({ ...creds(org), templateIdentifier: t.identifier, draftKey: "tok", values: { name: "B" } });
    expect(res.status).toBe(200);
    expect(
      (await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "tok" })).body.draft.values,
    ).toEqual({ name: "B" });
    expect((await save({ ...creds(org), draftKey: "tok", values: { name: "B" } })).body.error).toBe(
      "templateIdentifier: is required",
    );
    // Another organization's token: its own scope has no such template.
    expect(
      (await save({ ...creds(other), templateIdentifier: t.identifier, draftKey: "tok", values: { name: "X" } }))
        .status,
    ).toBe(404);
    expect((await load({ ...creds(other), templateIdentifier: t.identifier, draftKey: "tok" })).status).toBe(404);
    expect(
      (
        await api.request("DELETE", "/api/embed/drafts", {
          body: { ...creds(other), templateIdentifier: t.identifier, draftKey: "tok" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await save({
          token: other.token,
          orgId: org.orgId,
          templateIdentifier: t.identifier,
          draftKey: "tok",
          values: { a: 1 },
        })
      ).status,
    ).toBe(401);
    // The other organization's session for its own template cannot reach this draft either.
    const theirs = await activeTemplate(other);
    const theirSession = await newSession(api, other, theirs.identifier);
    expect((await load({ sessionId: theirSession, templateIdentifier: t.identifier, draftKey: "tok" })).status).toBe(
      403,
    );
    expect((await load({ sessionId: theirSession, draftKey: "tok" })).body.draft).toBeNull();
  });

  it("answers 404 for a template that is not active", async () => {
    const t = await activeTemplate(org);
    await api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), status: "draft" } });
    expect(
      (await save({ ...creds(org), templateIdentifier: t.identifier, draftKey: "k", values: { a: 1 } })).status,
    ).toBe(404);
  });
});

describe("draft_saved webhook", () => {
  it("queues form.draft_saved for the session's webhookUrl and the runner delivers it", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/hook` });
    await save({ sessionId, draftKey: "wh", values: { name: "C" } });
    const [delivery] = await api.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.templateIdentifier, t.identifier));
    expect(delivery).toMatchObject({ eventType: "form.draft_saved", url: `${receiver.url}/hook`, status: "pending" });
    receiver.requests.length = 0;
    await new JobRunner(api.services, jobHandlers).runDue();
    expect(receiver.requests).toHaveLength(1);
    const payload = JSON.parse(receiver.requests[0]!.body);
    expect(payload).toMatchObject({
      event: "form.draft_saved",
      organizationId: org.orgId,
      templateIdentifier: t.identifier,
      data: { draftKey: "wh", keys: ["name"] },
    });
  });

  it("sends no webhook when neither the session nor the organization has a URL", async () => {
    const fresh = await api.createOrg("No hooks");
    const t = await activeTemplate(fresh);
    await save({ ...creds(fresh), templateIdentifier: t.identifier, draftKey: "n", values: { a: 1 } });
    expect(await api.services.db.select().from(jobs).where(eq(jobs.organizationId, fresh.orgId))).toEqual([]);
    await updateOrganizationSettings(fresh.ctx, { webhookUrls: [`${receiver.url}/default`] });
    await save({ ...creds(fresh), templateIdentifier: t.identifier, draftKey: "n", values: { b: 2 } });
    const [delivery] = await api.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.organizationId, fresh.orgId));
    expect(delivery!.url).toBe(`${receiver.url}/default`);
  });
});

describe("concurrency", () => {
  it("50 parallel saves of distinct keys to one draft leave all 50", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => save({ sessionId, draftKey: "busy", values: { [`k${i}`]: i } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const rows = await api.services.db.select().from(drafts).where(eq(drafts.templateIdentifier, t.identifier));
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!.values)).toHaveLength(50);
    for (let i = 0; i < 50; i++) expect(rows[0]!.values[`k${i}`]).toBe(i);
  });
});

describe("draft size", () => {
  it("caps the merged draft, not only each save, and keeps the draft as it was", async () => {
    const t = await activeTemplate(org);
    const body = (key: string) => ({
      ...creds(org),
      templateIdentifier: t.identifier,
      draftKey: "big",
      values: { [key]: "x".repeat(300 * 1024) },
    });
    expect((await save(body("a"))).status).toBe(200);
    const merged = await save(body("b"));
    expect(merged.status).toBe(413);
    expect(merged.body).toMatchObject({ ok: false, error: expect.stringContaining("would exceed") });
    const kept = await load({ ...creds(org), templateIdentifier: t.identifier, draftKey: "big" });
    expect(Object.keys(kept.body.draft.values)).toEqual(["a"]);
  });
});

describe("the audit entry of a save", () => {
  const draftEntries = (orgId: string, templateIdentifier: string) =>
    api.services.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.organizationId, orgId),
          eq(auditLog.templateIdentifier, templateIdentifier),
          eq(auditLog.action, "form.draft_saved"),
        ),
      )
      .orderBy(auditLog.seq);

  it("is written once per save, never for a refused one, and chains and verifies like any entry", async () => {
    const fresh = await api.createOrg("Audited drafts");
    const t = await activeTemplate(fresh);
    const body = (values: Record<string, unknown>) => ({
      ...creds(fresh),
      templateIdentifier: t.identifier,
      draftKey: "aud",
      values,
    });
    const saved = await api.request("POST", "/api/embed/drafts", {
      body: body({ name: "Erika", age: 41 }),
      headers: { "user-agent": "bench-agent/1" },
    });
    expect(saved.status).toBe(200);
    expect((await save(body({ big: "x".repeat(300 * 1024) }))).status).toBe(200);
    expect((await save(body({ bigger: "x".repeat(300 * 1024) }))).status).toBe(413);
    expect(
      (await save({ ...creds(fresh), templateIdentifier: "no-such-template", draftKey: "aud", values: { a: 1 } }))
        .status,
    ).toBe(404);

    const entries = await draftEntries(fresh.orgId, t.identifier);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      actorType: "api_key",
      userAgent: "bench-agent/1",
      metadata: { draftKey: "aud", keys: ["age", "name"] },
    });
    expect(
      await api.services.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.organizationId, fresh.orgId), eq(auditLog.templateIdentifier, "no-such-template"))),
    ).toEqual([]);
    // F13 lists the entry as soon as the save has answered.
    const f13 = await api.request(
      "GET",
      `/api/embed/audit-logs?${query({ ...creds(fresh), action: "form.draft_saved" })}`,
    );
    expect(f13.status).toBe(200);
    expect(JSON.stringify(f13.body)).toContain("form.draft_saved");

    expect(await chainOrganizationNow(api.services.db, fresh.orgId)).toBeGreaterThanOrEqual(2);
    expect(await verifyAuditChain(fresh.ctx)).toMatchObject({ ok: true, brokenAt: null });
  });

  it("with the organization's default webhook: one entry, and the delivery commits with the save", async () => {
    const hooked = await api.createOrg("Hooked drafts");
    await updateOrganizationSettings(hooked.ctx, { webhookUrls: [`${receiver.url}/org-default`] });
    const t = await activeTemplate(hooked);
    const res = await save({
      ...creds(hooked),
      templateIdentifier: t.identifier,
      draftKey: "h",
      values: { name: "D" },
    });
    expect(res.status).toBe(200);
    expect(await draftEntries(hooked.orgId, t.identifier)).toHaveLength(1);
    const [delivery] = await api.services.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.organizationId, hooked.orgId));
    expect(delivery).toMatchObject({ eventType: "form.draft_saved", url: `${receiver.url}/org-default` });
    const [row] = await api.services.db.select().from(drafts).where(eq(drafts.organizationId, hooked.orgId));
    expect(JSON.parse(delivery!.body)).toMatchObject({ data: { draftKey: "h", draftId: row!.id, keys: ["name"] } });
  });
});

describe("the tRPC door", () => {
  it("saves, loads and deletes with x-session-id or a bearer token", async () => {
    const t = await activeTemplate(org);
    // A session that pins its draftKey shares that draft with token callers.
    const sessionId = await newSession(api, org, t.identifier, { draftKey: "rpc" });
    const client = api.trpc({ sessionId });
    await client.drafts.save.mutate({ draftKey: "rpc", values: { a: 1 } });
    await api
      .trpc({ bearer: org.token })
      .drafts.save.mutate({ templateIdentifier: t.identifier, draftKey: "rpc", values: { b: 2 } });
    expect((await client.drafts.get.query({ draftKey: "rpc" }))!.values).toEqual({ a: 1, b: 2 });
    await expect(client.drafts.save.mutate({ draftKey: "rpc", values: {} })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(
      api.trpc({ bearer: other.token }).drafts.get.query({ templateIdentifier: t.identifier, draftKey: "rpc" }),
    ).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await client.drafts.delete.mutate({ draftKey: "rpc" });
    expect(await client.drafts.get.query({ draftKey: "rpc" })).toBeNull();
  });
});
