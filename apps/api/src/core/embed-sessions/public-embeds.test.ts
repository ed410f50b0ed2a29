import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, formSessions, sql } from "@clinsign/db";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { VISITOR_STARTS_PER_WINDOW } from "./public-embeds";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let staff: ReturnType<TestApi["trpc"]>;
const anonymous = () => api.trpc({});

beforeAll(async () => {
  api = await startTestApi({ PUBLIC_WEB_URL: "https://forms.test" });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  // The public embed is day-to-day work: the staff role may set it up and turn it off.
  await createStaffUser(api.services, {
    organizationId: org.orgId,
    email: "nurse@embed.test",
    password: "a long enough password",
    role: "staff",
  });
  staff = api.trpc({ cookie: await logInCookie(api, "nurse@embed.test", "a long enough password") });
});
afterAll(() => api?.close());

async function publicEmbedOf(fields = [{ id: "f1", type: "text" as const, key: "name", label: "Name" }]) {
  const template = await activeTemplate(org, fields);
  const embed = await staff.publicEmbeds.save.mutate({
    templateIdentifier: template.identifier,
    allowedOrigins: ["https://clinic.example"],
    enabled: true,
  });
  return { template, embed };
}

describe("public embed: one snippet, a session of its own for every visitor", () => {
  it("gives the template one permanent code and a snippet URL that carries no session", async () => {
    const template = await activeTemplate(org);
    expect(await staff.publicEmbeds.get.query({ templateIdentifier: template.identifier })).toBeNull();
    // Framing needs an origin to allow: an embed without one could not be shown anywhere.
    await expect(
      staff.publicEmbeds.save.mutate({ templateIdentifier: template.identifier, allowedOrigins: [], enabled: true }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "allowedOrigins" } },
    });
    const embed = await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: ["https://clinic.example"],
      enabled: true,
    });
    expect(embed.code).toMatch(/^pe_[A-Za-z0-9_-]{24}$/);
    expect(embed.embedUrl).toBe(`https://forms.test/embed/${template.identifier}?embed=${embed.code}`);
    expect(embed.embedUrl).not.toContain("session");
    const changed = await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: ["https://clinic.example", "https://www.clinic.example"],
      enabled: true,
    });
    expect(changed.code).toBe(embed.code);
    expect(await anonymous().publicEmbeds.describe.query({ code: embed.code })).toEqual({
      enabled: true,
      allowedOrigins: ["https://clinic.example", "https://www.clinic.example"],
    });
    const entries = await api.services.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.templateIdentifier, template.identifier), sql`${auditLog.metadata}->>'kind' = 'public_embed'`),
      )
      .orderBy(auditLog.seq);
    expect(entries[0]).toMatchObject({ action: "config.updated", actorType: "user" });
    // The second save is audited with what it changed: one more origin.
    expect(entries.at(-1)!.metadata).toMatchObject({
      changed: ["allowedOrigins"],
      changes: {
        allowedOrigins: {
          from: ["https://clinic.example"],
          to: ["https://clinic.example", "https://www.clinic.example"],
        },
      },
    });
  });

  it("two visitors: the second sees no draft of the first and can neither read nor overwrite it through any door", async () => {
    const { embed } = await publicEmbedOf();
    const first = await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    const second = await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    expect(first.sessionId).not.toBe(second.sessionId);
    const a = api.trpc({ sessionId: first.sessionId });
    const b = api.trpc({ sessionId: second.sessionId });

    await a.drafts.save.mutate({ draftKey: "embedded-form", values: { name: "Erika Mustermann" } });
    expect((await a.drafts.get.query({ draftKey: "embedded-form" }))?.values).toEqual({ name: "Erika Mustermann" });
    // tRPC with the same name, REST F8 with any name, and the first visitor's own key: nothing.
    expect(await b.drafts.get.query({ draftKey: "embedded-form" })).toBeNull();
    const f8 = await api.request(
      "GET",
      `/api/embed/drafts?${query({ sessionId: second.sessionId, draftKey: "embedded-form" })}`,
    );
    expect(f8.status).toBe(200);
    expect(f8.body.draft).toBeNull();
    const [row] = await api.services.db
      .select()
      .from(formSessions)
      .where(eq(formSessions.publicEmbedId, sql`(select id from public_embeds where code = ${embed.code})`))
      .limit(1);
    for (const draftKey of [`session:${row!.id}:embedded-form`, "SESSION:x", "form-request:1"]) {
      const viaSession = await api.request(
        "GET",
        `/api/embed/drafts?${query({ sessionId: second.sessionId, draftKey })}`,
      );
      expect(viaSession.status).toBe(400);
    }
    // The second visitor's saves and deletes stay in its own namespace.
    await b.drafts.save.mutate({ draftKey: "embedded-form", values: { name: "Max" } });
    await api.request("DELETE", "/api/embed/drafts", {
      body: { sessionId: second.sessionId, draftKey: "embedded-form" },
    });
    expect((await a.drafts.get.query({ draftKey: "embedded-form" }))?.values).toEqual({ name: "Erika Mustermann" });
  });

  it("keeps the service's own draft namespaces from every caller (API tokens and pinned session keys too)", async () => {
    const { template } = await publicEmbedOf();
    for (const draftKey of ["session:abc:embedded-form", "form-request:0b6d2c3a", "Form-Request:x"]) {
      const f7 = await api.request("POST", "/api/embed/drafts", {
        body: { ...creds(org), templateIdentifier: template.identifier, draftKey, values: { name: "x" } },
      });
      expect(f7.status).toBe(400);
      const f8 = await api.request(
        "GET",
        `/api/embed/drafts?${query({ ...creds(org), templateIdentifier: template.identifier, draftKey })}`,
      );
      expect(f8.status).toBe(400);
      const embedSession = await api.request("POST", "/api/embed/sessions", {
        body: { ...creds(org), templateIdentifier: template.identifier, config: { draftKey } },
      });
      expect(embedSession.status).toBe(400);
    }
  });

  it("turned off: every visitor's session ends, no new one starts, and the page can still say why", async () => {
    const { template, embed } = await publicEmbedOf();
    const visitor = await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    expect((await api.request("GET", `/api/embed/template?${query({ sessionId: visitor.sessionId })}`)).status).toBe(
      200,
    );
    await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: embed.allowedOrigins,
      enabled: false,
    });
    expect((await api.request("GET", `/api/embed/template?${query({ sessionId: visitor.sessionId })}`)).status).toBe(
      401,
    );
    await expect(anonymous().publicEmbeds.start.mutate({ code: embed.code })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    expect(await anonymous().publicEmbeds.describe.query({ code: embed.code })).toEqual({
      enabled: false,
      allowedOrigins: ["https://clinic.example"],
    });
    // On again: a new visitor gets in, the ended session stays ended.
    await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: embed.allowedOrigins,
      enabled: true,
    });
    expect((await api.request("GET", `/api/embed/template?${query({ sessionId: visitor.sessionId })}`)).status).toBe(
      401,
    );
    await expect(anonymous().publicEmbeds.start.mutate({ code: embed.code })).resolves.toMatchObject({
      sessionId: expect.any(String),
    });
  });

  it("new origins reach the sessions visitors already have", async () => {
    const { template, embed } = await publicEmbedOf();
    const visitor = api.trpc({
      sessionId: (await anonymous().publicEmbeds.start.mutate({ code: embed.code })).sessionId,
    });
    expect((await visitor.sessions.current.query()).allowedOrigins).toEqual(["https://clinic.example"]);
    await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: ["https://new.clinic.example"],
      enabled: true,
    });
    expect((await visitor.sessions.current.query()).allowedOrigins).toEqual(["https://new.clinic.example"]);
  });

  it("starts every visit empty by default; resuming and shared devices are the clinic's choice, live for open sessions", async () => {
    const { template, embed } = await publicEmbedOf();
    // Default: nothing to resume, the browser is told not to keep the session.
    expect(embed.visitor).toEqual({ mode: "fresh", idleMinutes: 5 });
    const started = await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    expect(started.visitor).toEqual({ mode: "fresh", idleMinutes: 5 });
    const visitor = api.trpc({ sessionId: started.sessionId });
    expect((await visitor.sessions.current.query()).visitor).toEqual({ mode: "fresh", idleMinutes: 5 });

    const saved = await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: ["https://clinic.example"],
      enabled: true,
      visitor: { mode: "resume", idleMinutes: 5 },
    });
    expect(saved.visitor.mode).toBe("resume");
    expect((await anonymous().publicEmbeds.start.mutate({ code: embed.code })).visitor.mode).toBe("resume");
    // A tablet switched to "shared device": the open session learns it at once.
    await staff.publicEmbeds.save.mutate({
      templateIdentifier: template.identifier,
      allowedOrigins: ["https://clinic.example"],
      enabled: true,
      visitor: { mode: "shared_device", idleMinutes: 3 },
    });
    expect((await visitor.sessions.current.query()).visitor).toEqual({ mode: "shared_device", idleMinutes: 3 });
    // Saving without a policy keeps the one set.
    expect(
      (
        await staff.publicEmbeds.save.mutate({
          templateIdentifier: template.identifier,
          allowedOrigins: ["https://clinic.example"],
          enabled: true,
        })
      ).visitor,
    ).toEqual({ mode: "shared_device", idleMinutes: 3 });
    await expect(
      staff.publicEmbeds.save.mutate({
        templateIdentifier: template.identifier,
        allowedOrigins: ["https://clinic.example"],
        enabled: true,
        visitor: { mode: "shared_device", idleMinutes: 0 },
      }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });

  it("refuses unknown codes, inactive templates, other organizations and too many starts from one address", async () => {
    await expect(anonymous().publicEmbeds.start.mutate({ code: "pe_AAAAAAAAAAAAAAAAAAAAAAAA" })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(anonymous().publicEmbeds.describe.query({ code: "not-a-code" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    const { template, embed } = await publicEmbedOf();
    const theirs = api.trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) });
    await expect(
      theirs.publicEmbeds.save.mutate({
        templateIdentifier: template.identifier,
        allowedOrigins: ["https://x.example"],
        enabled: true,
      }),
    ).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    expect(await theirs.publicEmbeds.get.query({ templateIdentifier: template.identifier })).toBeNull();
    await api.request("PATCH", `/api/embed/templates/${template.identifier}`, {
      body: { ...creds(org), status: "draft" },
    });
    await expect(anonymous().publicEmbeds.start.mutate({ code: embed.code })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await api.request("PATCH", `/api/embed/templates/${template.identifier}`, {
      body: { ...creds(org), status: "active" },
    });

    for (let i = 1; i < VISITOR_STARTS_PER_WINDOW; i++)
      await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    await expect(anonymous().publicEmbeds.start.mutate({ code: embed.code })).rejects.toMatchObject({
      data: { httpStatus: 429 },
    });
  });

  it("goes with its template", async () => {
    const { template, embed } = await publicEmbedOf();
    expect(
      (await api.request("DELETE", `/api/embed/templates/${template.identifier}`, { body: creds(org) })).status,
    ).toBe(200);
    await expect(anonymous().publicEmbeds.describe.query({ code: embed.code })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });
});

describe("personal links", () => {
  it("are listed per template with case number and expiry, in pages, without the visitors of a public embed", async () => {
    const { template, embed } = await publicEmbedOf();
    await anonymous().publicEmbeds.start.mutate({ code: embed.code });
    for (const rnummer of ["R-1", "R-2", "R-3"]) await newSession(api, org, template.identifier, { rnummer });
    const first = await staff.sessions.list.query({ templateIdentifier: template.identifier, limit: 2 });
    expect(first.items.map((link) => link.rnummer)).toEqual(["R-3", "R-2"]);
    expect(first.hasMore).toBe(true);
    const second = await staff.sessions.list.query({
      templateIdentifier: template.identifier,
      limit: 2,
      cursor: first.nextCursor!,
    });
    expect(second).toMatchObject({
      items: [{ rnummer: "R-1", expiresAt: expect.any(String) }],
      hasMore: false,
      nextCursor: null,
    });
  });
});
