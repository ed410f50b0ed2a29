import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTemplateInput } from "@clinsign/contracts";
import { and, auditLog, eq, formSessions, organizations, rateLimits, sql } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { FORM_SESSION_CALLS_PER_MINUTE } from "../../trpc/trpc";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import { createTemplate } from "../templates/templates";
import { saveDefaultBranding, saveDesign } from "../branding/branding";
import { updateOrganizationSettings } from "../organizations/organizations";
import { sha256Hex } from "../crypto";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startTestApi({ PUBLIC_WEB_URL: "https://forms.test" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

describe("POST /api/embed/sessions", () => {
  it("creates a 24 h session for an active template, stores only its hash and audits config.updated", async () => {
    const t = await activeTemplate(org);
    const before = Date.now();
    const res = await api.request("POST", "/api/embed/sessions", {
      body: {
        ...creds(org),
        templateIdentifier: t.identifier,
        config: { draftKey: "case-1", redirectUrl: "https://clinic.test/done", emailTo: "a@clinic.test" },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, sessionId: expect.stringMatching(/^fs_[A-Za-z0-9_-]{43}$/) });
    const lifetime = Date.parse(res.body.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(lifetime).toBeLessThan(24 * 3600_000 + 60_000);
    expect(res.body.embedUrl).toBe(
      `https://forms.test/embed/${t.identifier}?session=${encodeURIComponent(res.body.sessionId)}`,
    );
    const [row] = await api.services.db
      .select()
      .from(formSessions)
      .where(eq(formSessions.tokenHash, sha256Hex(res.body.sessionId)));
    expect(row).toMatchObject({
      organizationId: org.orgId,
      templateIdentifier: t.identifier,
      config: { draftKey: "case-1", emailTo: ["a@clinic.test"] },
    });
    const dump = JSON.stringify(await api.services.db.execute(sql`select * from form_sessions`));
    expect(dump).not.toContain(res.body.sessionId);
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.templateIdentifier, t.identifier), eq(auditLog.action, "config.updated")));
    expect(entry).toMatchObject({
      action: "config.updated",
      actorType: "api_key",
      metadata: { kind: "session", configKeys: ["draftKey", "emailTo", "redirectUrl"] },
    });
  });

  it("honours expiresInMinutes and refuses bad config with 400", async () => {
    const t = await activeTemplate(org);
    const res = await api.request("POST", "/api/embed/sessions", {
      body: { ...creds(org), templateIdentifier: t.identifier, config: { expiresInMinutes: 5 } },
    });
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeLessThan(5 * 60_000 + 1000);
    for (const [config, key] of [
      [{ webhookUrl: "ftp://x" }, "config.webhookUrl"],
      [{ emailTo: ["not-an-address"] }, "config.emailTo"],
      [{ emailSubject: "s".repeat(201) }, "config.emailSubject"],
      [{ expiresInMinutes: 0 }, "config.expiresInMinutes"],
      [{ colour: "red" }, "config"],
    ] as const) {
      const bad = await api.request("POST", "/api/embed/sessions", {
        body: { ...creds(org), templateIdentifier: t.identifier, config },
      });
      expect(bad.status, JSON.stringify(config)).toBe(400);
      expect(bad.body.ok).toBe(false);
      expect(bad.body.fieldErrors[0].key.startsWith(key)).toBe(true);
    }
    const missing = await api.request("POST", "/api/embed/sessions", { body: { ...creds(org) } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("templateIdentifier: is required");
  });

  it("answers 404 for a draft or foreign template and 401 for bad credentials", async () => {
    const draft = await createTemplate(org.ctx, createTemplateInput.parse({ title: "draft" }));
    expect(
      (
        await api.request("POST", "/api/embed/sessions", {
          body: { ...creds(org), templateIdentifier: draft.identifier },
        })
      ).status,
    ).toBe(404);
    const mine = await activeTemplate(org);
    expect(
      (
        await api.request("POST", "/api/embed/sessions", {
          body: { ...creds(other), templateIdentifier: mine.identifier },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api.request("POST", "/api/embed/sessions", {
          body: { token: other.token, orgId: org.orgId, templateIdentifier: mine.identifier },
        })
      ).status,
    ).toBe(401);
  });
});

describe("sessionId as the credential of F3", () => {
  it("loads the session's template with the sessionId alone, and nothing else", async () => {
    const t = await activeTemplate(org);
    const second = await activeTemplate(org, undefined, "Other form");
    const sessionId = await newSession(api, org, t.identifier);
    const ok = await api.request("GET", `/api/embed/template?${query({ sessionId })}`);
    expect(ok.status).toBe(200);
    expect(ok.body.template).toMatchObject({ identifier: t.identifier, status: "active" });
    expect(
      (await api.request("GET", `/api/embed/template?${query({ sessionId, templateIdentifier: t.identifier })}`))
        .status,
    ).toBe(200);
    const foreign = await api.request(
      "GET",
      `/api/embed/template?${query({ sessionId, templateIdentifier: second.identifier })}`,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ ok: false, error: "this session belongs to another template" });
    // A session is not an API token: the token-only calls refuse it.
    expect((await api.request("GET", `/api/embed/templates?${query({ sessionId })}`)).status).toBe(401);
  });

  it("answers 401 for an unknown or expired session, 400 without any credential parameter for the template", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    expect((await api.request("GET", `/api/embed/template?${query({ sessionId: "fs_nope" })}`)).status).toBe(401);
    await api.services.db
      .update(formSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(formSessions.tokenHash, sha256Hex(sessionId)));
    const expired = await api.request("GET", `/api/embed/template?${query({ sessionId })}`);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe("invalid or expired session");
    expect((await api.request("GET", `/api/embed/template`)).status).toBe(401);
    expect((await api.request("GET", `/api/embed/template?${query(creds(org))}`)).status).toBe(400);
  });

  it("answers 404 once the session's template is no longer active", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    await api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), status: "archived" } });
    expect((await api.request("GET", `/api/embed/template?${query({ sessionId })}`)).status).toBe(404);
  });
});

describe("the tRPC door", () => {
  it("creates sessions with a token and serves the embedded form with x-session-id", async () => {
    const t = await activeTemplate(org);
    const created = await api.trpc({ bearer: org.token }).sessions.create.mutate({
      templateIdentifier: t.identifier,
      config: { draftKey: "k1", prefill: { name: "Erika" } },
    });
    const client = api.trpc({ sessionId: created.sessionId });
    expect(await client.sessions.current.query()).toEqual({
      templateIdentifier: t.identifier,
      expiresAt: created.expiresAt,
      draftKey: "k1",
      redirectUrl: null,
      prefill: { name: "Erika" },
      allowedOrigins: [],
      branding: null,
      organizationName: "Klinik Nord",
      phoneCountry: "DE",
    });
    expect((await client.forms.template.query({})).identifier).toBe(t.identifier);
    await expect(client.sessions.create.mutate({ templateIdentifier: t.identifier })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    await expect(api.trpc({ sessionId: "fs_wrong" }).forms.template.query({})).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    await expect(
      api.trpc({ bearer: other.token }).sessions.create.mutate({ templateIdentifier: t.identifier }),
    ).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });
});

describe("the institution of a session", () => {
  it("must be one of the organization's institutions; its branding reaches the form page, with the organization's name", async () => {
    const branded = await api.createOrg("Klinikverbund West");
    await updateOrganizationSettings(branded.ctx, { phoneCountry: "AT" });
    const t = await activeTemplate(branded);
    await saveDefaultBranding(branded.ctx, { design_parameters: { primaryColor: "#333333" } });
    await saveDesign(
      branded.ctx,
      { institution_id: "haus-b", design_parameters: { primaryColor: "#0a5c36", font: "Georgia" } },
      "create",
    );
    await saveDesign(other.ctx, { institution_id: "fremd", design_parameters: {} }, "create");
    for (const institutionId of ["haus-x", "fremd", ""]) {
      const bad = await api.request("POST", "/api/embed/sessions", {
        body: { ...creds(branded), templateIdentifier: t.identifier, config: { institutionId } },
      });
      expect(bad.status, institutionId).toBe(400);
      expect(bad.body.fieldErrors[0].key).toBe("config.institutionId");
    }
    const withInstitution = await newSession(api, branded, t.identifier, { institutionId: "haus-b" });
    expect(await api.trpc({ sessionId: withInstitution }).sessions.current.query()).toMatchObject({
      organizationName: "Klinikverbund West",
      phoneCountry: "AT",
      branding: { primaryColor: "#0a5c36", font: "Georgia" },
    });
    const plain = await newSession(api, branded, t.identifier);
    expect(await api.trpc({ sessionId: plain }).sessions.current.query()).toMatchObject({
      branding: { primaryColor: "#333333" },
    });
  });
});

describe("staff control of embed sessions", () => {
  const f3 = (sessionId: string) => api.request("GET", `/api/embed/template?${query({ sessionId })}`);

  it("lists the valid sessions and revokes one: its sessionId is 401 from then on", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier, { draftKey: "case-9" });
    const [row] = await api.services.db
      .select()
      .from(formSessions)
      .where(eq(formSessions.tokenHash, sha256Hex(sessionId)));
    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const staff = api.trpc({ cookie });
    expect((await staff.sessions.list.query({ templateIdentifier: t.identifier })).items).toEqual([
      {
        id: row!.id,
        templateIdentifier: t.identifier,
        rnummer: null,
        draftKey: "case-9",
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      },
    ]);
    // Another organization's staff cannot see or end it; an API token is not staff.
    const theirs = api.trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) });
    expect((await theirs.sessions.list.query({})).items.some((s) => s.id === row!.id)).toBe(false);
    await expect(theirs.sessions.revoke.mutate({ id: row!.id })).rejects.toMatchObject({ data: { httpStatus: 404 } });
    await expect(api.trpc({ bearer: org.token }).sessions.revoke.mutate({ id: row!.id })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    expect((await f3(sessionId)).status).toBe(200);

    expect(await staff.sessions.revoke.mutate({ id: row!.id })).toEqual({ ok: true });
    expect((await f3(sessionId)).status).toBe(401);
    expect((await staff.sessions.list.query({})).items.some((s) => s.id === row!.id)).toBe(false);
    await expect(staff.sessions.revoke.mutate({ id: row!.id })).rejects.toMatchObject({ data: { httpStatus: 404 } });
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), sql`${auditLog.metadata}->>'revoked' = 'true'`));
    expect(entry).toMatchObject({
      action: "config.updated",
      actorType: "user",
      metadata: { kind: "session", sessionRecordId: row!.id },
    });
  });

  it("holds each session to a pace of its own (429 with Retry-After), shared by every instance", async () => {
    const t = await activeTemplate(org);
    const [busy, calm] = [await newSession(api, org, t.identifier), await newSession(api, org, t.identifier)];
    const [row] = await api.services.db
      .select()
      .from(formSessions)
      .where(eq(formSessions.tokenHash, sha256Hex(busy)));
    // The window's count as if the session had already made its calls for this minute.
    await api.services.db.execute(
      sql`insert into ${rateLimits} (key, count, reset_at) values (${`form-session:${row!.id}`}, ${FORM_SESSION_CALLS_PER_MINUTE}, now() + interval '60 seconds')`,
    );
    const limited = await f3(busy);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    await expect(api.trpc({ sessionId: busy }).sessions.current.query()).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
    expect((await f3(calm)).status).toBe(200);
  });

  it("counts every call when the session is authenticated, and nothing for a refused sessionId", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    const [row] = await api.services.db
      .select()
      .from(formSessions)
      .where(eq(formSessions.tokenHash, sha256Hex(sessionId)));
    const key = `form-session:${row!.id}`;
    const count = async () =>
      (await api.services.db.select().from(rateLimits).where(eq(rateLimits.key, key)))[0]?.count;
    expect((await f3(sessionId)).status).toBe(200);
    expect(
      (await api.request("POST", "/api/embed/drafts", { body: { sessionId, draftKey: "k", values: { a: 1 } } })).status,
    ).toBe(200);
    expect(await count()).toBe(2);
    // One call short of the limit: that call still passes, the next one is refused.
    await api.services.db
      .update(rateLimits)
      .set({ count: FORM_SESSION_CALLS_PER_MINUTE - 1 })
      .where(eq(rateLimits.key, key));
    expect((await f3(sessionId)).status).toBe(200);
    const refused = await api.request("POST", "/api/embed/drafts", {
      body: { sessionId, draftKey: "k", values: { a: 2 } },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // A revoked session is 401 and no longer counted.
    await api.services.db
      .update(formSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(formSessions.id, row!.id));
    expect((await f3(sessionId)).status).toBe(401);
    expect(await count()).toBe(FORM_SESSION_CALLS_PER_MINUTE + 1);
  });
});

describe("who may choose a session's webhookUrl", () => {
  it("staff with the staff role only the organization's default URLs; owners, admins and API tokens any", async () => {
    const t = await activeTemplate(org);
    const defaultUrl = "https://his.clinic.test/hooks/forms";
    await api.services.db
      .update(organizations)
      .set({ webhookUrls: [defaultUrl] })
      .where(eq(organizations.id, org.orgId));
    for (const role of ["staff", "admin"] as const) {
      await createStaffUser(api.services, {
        organizationId: org.orgId,
        email: `${role}@webhook.test`,
        password: "a long enough password",
        role,
      });
    }
    const as = async (email: string) => api.trpc({ cookie: await logInCookie(api, email, "a long enough password") });
    const staff = await as("staff@webhook.test");
    const admin = await as("admin@webhook.test");
    const owner = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    const elsewhere = { templateIdentifier: t.identifier, config: { webhookUrl: "https://attacker.test/collect" } };

    await expect(staff.sessions.create.mutate(elsewhere)).rejects.toMatchObject({ data: { httpStatus: 403 } });
    expect(
      await api.services.db
        .select()
        .from(formSessions)
        .where(sql`${formSessions.config}->>'webhookUrl' = 'https://attacker.test/collect'`),
    ).toHaveLength(0);
    expect(
      (await staff.sessions.create.mutate({ templateIdentifier: t.identifier, config: { webhookUrl: defaultUrl } }))
        .sessionId,
    ).toMatch(/^fs_/);
    expect(
      (await staff.sessions.create.mutate({ templateIdentifier: t.identifier, config: { draftKey: "k" } })).sessionId,
    ).toMatch(/^fs_/);
    for (const allowed of [admin, owner, api.trpc({ bearer: org.token })]) {
      expect((await allowed.sessions.create.mutate(elsewhere)).sessionId).toMatch(/^fs_/);
    }
    const rest = await api.request("POST", "/api/embed/sessions", { body: { ...creds(org), ...elsewhere } });
    expect(rest.status).toBe(200);
  });

  it("staff with the staff role may not name e-mail addresses for the answers; owners, admins and API tokens may", async () => {
    const t = await activeTemplate(org);
    const staff = api.trpc({ cookie: await logInCookie(api, "staff@webhook.test", "a long enough password") });
    const mailed = { templateIdentifier: t.identifier, config: { emailTo: ["collector@elsewhere.test"] } };
    await expect(staff.sessions.create.mutate(mailed)).rejects.toMatchObject({
      data: { httpStatus: 403 },
      message: expect.stringContaining("e-mail"),
    });
    expect(
      await api.services.db
        .select()
        .from(formSessions)
        .where(sql`${formSessions.config}->'emailTo' ? 'collector@elsewhere.test'`),
    ).toHaveLength(0);
    for (const allowed of [
      api.trpc({ cookie: await logInCookie(api, "admin@webhook.test", "a long enough password") }),
      api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) }),
      api.trpc({ bearer: org.token }),
    ]) {
      expect((await allowed.sessions.create.mutate(mailed)).sessionId).toMatch(/^fs_/);
    }
    expect(
      await api.services.db
        .select()
        .from(formSessions)
        .where(sql`${formSessions.config}->'emailTo' ? 'collector@elsewhere.test'`),
    ).toHaveLength(3);
  });
});
