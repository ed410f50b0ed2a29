import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, sql } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import { verifyAuditChain } from "./audit";
import { chainOrganizationNow } from "../jobs/audit-chain";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

const logs = (params: Record<string, string | number | undefined>) =>
  api.request("GET", `/api/embed/audit-logs?${query(params)}`);

describe("F13 GET /api/embed/audit-logs", () => {
  it("lists entries newest first with the documented fields, filtered by action and template", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    await api.request("POST", "/api/embed/submit", {
      body: { sessionId, values: { name: "Erika" }, rnummer: "R-13", phone: "+491701234567" },
    });
    const res = await logs({ ...creds(org), templateIdentifier: t.identifier });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.logs.map((l: { action: string }) => l.action)).toEqual([
      "form.submitted",
      "config.updated",
      "template.created",
    ]);
    const submitted = res.body.logs[0];
    expect(submitted).toEqual({
      id: expect.any(String),
      action: "form.submitted",
      templateIdentifier: t.identifier,
      actorType: "session",
      actorId: expect.any(String),
      metadata: {
        rnummer: "R-13",
        phone: "+491701234567",
        fieldCount: 1,
        submissionId: expect.any(String),
        language: "de",
        // The session pinned neither: the browser named them, and the entry says so (issue 32).
        patientReported: ["rnummer", "phone"],
      },
      ip: expect.stringContaining("127.0.0.1"),
      userAgent: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(typeof submitted.metadata.fieldCount).toBe("number");
    const onlySubmitted = await logs({ ...creds(org), action: "form.submitted" });
    expect(onlySubmitted.body.logs.every((l: { action: string }) => l.action === "form.submitted")).toBe(true);
    expect(onlySubmitted.body.logs).toHaveLength(1);
  });

  it("limits to 100 by default and 500 at most; refuses other limits with 400", async () => {
    const busy = await api.createOrg("Busy");
    const t = await activeTemplate(busy);
    for (let i = 0; i < 51; i++) {
      await api.request("POST", "/api/embed/drafts", {
        body: { ...creds(busy), templateIdentifier: t.identifier, draftKey: `k${i}`, values: { name: "x" } },
      });
    }
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api.request("POST", "/api/embed/drafts", {
          body: { ...creds(busy), templateIdentifier: t.identifier, draftKey: `p${i}`, values: { name: "y" } },
        }),
      ),
    );
    expect((await logs(creds(busy))).body.logs).toHaveLength(100);
    expect((await logs({ ...creds(busy), limit: 500 })).body.logs).toHaveLength(103); // token.created, template.created, 101 drafts
    expect((await logs({ ...creds(busy), limit: 7 })).body.logs).toHaveLength(7);
    for (const limit of ["501", "0", "-3", "2.5", "ten"]) {
      const res = await logs({ ...creds(busy), limit });
      expect(res.status, limit).toBe(400);
      expect(res.body.fieldErrors[0].key).toBe("limit");
    }
    await chainOrganizationNow(api.services.db, busy.orgId);
    expect(await verifyAuditChain(busy.ctx)).toMatchObject({ ok: true, entries: 103, brokenAt: null });
  });

  it("shows nothing of another organization and answers 401 for bad credentials", async () => {
    const t = await activeTemplate(org);
    expect((await logs({ ...creds(other), templateIdentifier: t.identifier })).body.logs).toEqual([]);
    expect((await logs({ token: other.token, orgId: org.orgId })).status).toBe(401);
    expect((await logs({ orgId: org.orgId })).status).toBe(401);
    const sessionId = await newSession(api, org, t.identifier);
    expect((await logs({ sessionId })).status).toBe(401);
  });

  it("is the same list over tRPC", async () => {
    const t = await activeTemplate(org);
    const list = await api.trpc({ bearer: org.token }).audit.list.query({ templateIdentifier: t.identifier });
    expect(list.map((l) => l.action)).toEqual(["template.created"]);
    await expect(api.trpc({ bearer: org.token }).audit.list.query({ limit: 501 })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });
});

describe("the hash chain", () => {
  it("detects a row changed directly in the database", async () => {
    const fresh = await api.createOrg("Tamper");
    const t = await activeTemplate(fresh);
    const sessionId = await newSession(api, fresh, t.identifier);
    await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { name: "Erika" }, rnummer: "R-1" } });
    await chainOrganizationNow(api.services.db, fresh.orgId);
    await chainOrganizationNow(api.services.db, org.orgId);
    const before = await verifyAuditChain(fresh.ctx);
    expect(before).toMatchObject({ ok: true, brokenAt: null });
    const [target] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, fresh.orgId), eq(auditLog.action, "form.submitted")));
    await api.services.db.execute(
      sql`update audit_log set metadata = jsonb_set(metadata, '{rnummer}', '"R-2"') where id = ${target!.id}`,
    );
    expect(await verifyAuditChain(fresh.ctx)).toMatchObject({ ok: false, brokenAt: target!.seq });
    // Other organizations' chains are unaffected.
    expect((await verifyAuditChain(org.ctx)).ok).toBe(true);
  });
});
