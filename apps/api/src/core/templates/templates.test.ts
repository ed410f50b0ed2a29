import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTemplateInput } from "@clinsign/contracts";
import { TRPCClientError } from "@trpc/client";
import { auditLog, desc, eq } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { createTemplate } from "./templates";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

const creds = (o: TestOrg) => ({ token: o.token, orgId: o.orgId });
const query = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

async function create(body: Record<string, unknown>, o: TestOrg = org) {
  return api.request("POST", "/api/embed/templates", { body: { ...creds(o), ...body } });
}

describe("F2 POST /api/embed/templates", () => {
  it("creates a draft template with an empty schema by default", async () => {
    const res = await create({ title: "Anamnesebogen" });
    expect(res.status).toBe(201);
    expect(res.body.ok).toBe(true);
    const t = res.body.template;
    expect(t).toMatchObject({
      title: "Anamnesebogen",
      description: null,
      status: "draft",
      schema: { version: 1, fields: [] },
    });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.identifier).toMatch(/^anamnesebogen-[a-z0-9]+$/);
    expect(Date.parse(t.createdAt)).not.toBeNaN();
    expect(t.updatedAt).toBe(t.createdAt);
  });

  it("accepts titles of 1 and 120 characters and refuses 0 and 121", async () => {
    expect((await create({ title: "A" })).status).toBe(201);
    expect((await create({ title: "x".repeat(120) })).status).toBe(201);
    const empty = await create({ title: "" });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ ok: false, error: expect.stringContaining("title") });
    expect((await create({ title: "x".repeat(121) })).status).toBe(400);
    const missing = await create({});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("title: is required");
  });

  it("limits the description to 1000 characters", async () => {
    expect((await create({ title: "d", description: "y".repeat(1000) })).status).toBe(201);
    const res = await create({ title: "d", description: "y".repeat(1001) });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors).toEqual([{ key: "description", message: "must be at most 1000 characters" }]);
  });

  it("accepts the three statuses and refuses others", async () => {
    for (const status of ["draft", "active", "archived"]) {
      expect((await create({ title: `s ${status}`, status })).body.template.status).toBe(status);
    }
    const res = await create({ title: "bad", status: "published" });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("status");
  });

  it("validates the schema: numeric version, known field types, unique keys", async () => {
    const field = { id: "f1", type: "text", key: "name", label: "Name", required: true };
    const good = await create({ title: "With fields", schema: { version: 2, fields: [field] } });
    expect(good.status).toBe(201);
    expect(good.body.template.schema).toEqual({ version: 2, fields: [field] });

    const badVersion = await create({ title: "v", schema: { version: "2", fields: [] } });
    expect(badVersion.status).toBe(400);
    expect(badVersion.body.fieldErrors[0].key).toBe("schema.version");

    const badType = await create({ title: "t", schema: { version: 1, fields: [{ ...field, type: "hologram" }] } });
    expect(badType.status).toBe(400);
    expect(badType.body.fieldErrors[0].key).toBe("schema.fields.0.type");

    const dup = await create({ title: "d", schema: { version: 1, fields: [field, { ...field, id: "f2" }] } });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toContain('duplicate key "name"');
  });

  it("refuses patterns RE2 cannot run in linear time (backreferences, lookaround) with 400 naming the field, on F2 and F5", async () => {
    const field = { id: "f1", type: "text", key: "code", label: "Code" };
    for (const pattern of ["(a)\\1", "(?=a)a", "a(?!b)", "(?<=a)b", "(?<!a)b"]) {
      const res = await create({ title: "p", schema: { version: 1, fields: [{ ...field, pattern }] } });
      expect(res.status, pattern).toBe(400);
      expect(res.body.fieldErrors[0], pattern).toMatchObject({
        key: "schema.fields.0.pattern",
        message: expect.stringContaining("lookahead"),
      });
    }
    const ok = await create({ title: "p", schema: { version: 1, fields: [{ ...field, pattern: "(a+)+b" }] } });
    expect(ok.status).toBe(201);
    const patch = await api.request("PATCH", `/api/embed/templates/${ok.body.template.identifier}`, {
      body: { ...creds(org), schema: { version: 1, fields: [{ ...field, pattern: "(\\d)\\1" }] } },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.fieldErrors[0].key).toBe("schema.fields.0.pattern");
  });

  it("answers 401 for a wrong token, a token of another organization, or missing credentials", async () => {
    expect(
      (await api.request("POST", "/api/embed/templates", { body: { token: "cs_nope", orgId: org.orgId, title: "x" } }))
        .status,
    ).toBe(401);
    const foreign = await api.request("POST", "/api/embed/templates", {
      body: { token: other.token, orgId: org.orgId, title: "x" },
    });
    expect(foreign.status).toBe(401);
    expect(foreign.body).toMatchObject({ ok: false, error: expect.any(String) });
    expect((await api.request("POST", "/api/embed/templates", { body: { title: "x" } })).status).toBe(401);
    expect(
      (
        await api.request("POST", "/api/embed/templates", {
          body: { token: org.token, orgId: "not-a-uuid", title: "x" },
        })
      ).status,
    ).toBe(401);
  });

  it("writes a template.created audit entry with the API token as actor", async () => {
    const res = await create({ title: "Audited" });
    const [entry] = await api.services.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.templateIdentifier, res.body.template.identifier))
      .orderBy(desc(auditLog.seq));
    expect(entry).toMatchObject({ action: "template.created", actorType: "api_key", organizationId: org.orgId });
    expect(entry!.ip).toMatch(/127\.0\.0\.1/);
  });

  it("refuses malformed JSON and non-JSON bodies with clear errors", async () => {
    const bad = await api.request("POST", "/api/embed/templates", {
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("the body is not valid JSON");
    const form = await api.request("POST", "/api/embed/templates", {
      body: "title=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
  });
});

describe("F3 GET /api/embed/template", () => {
  it("returns only active templates, and 404 for other statuses and other organizations", async () => {
    const active = (await create({ title: "Aktiv", status: "active" })).body.template;
    const draft = (await create({ title: "Entwurf" })).body.template;
    const ok = await api.request(
      "GET",
      `/api/embed/template?${query({ ...creds(org), templateIdentifier: active.identifier })}`,
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      ok: true,
      template: {
        identifier: active.identifier,
        title: "Aktiv",
        description: null,
        status: "active",
        schema: { version: 1, fields: [] },
      },
    });
    expect(
      (
        await api.request(
          "GET",
          `/api/embed/template?${query({ ...creds(org), templateIdentifier: draft.identifier })}`,
        )
      ).status,
    ).toBe(404);
    const foreign = await api.request(
      "GET",
      `/api/embed/template?${query({ ...creds(other), templateIdentifier: active.identifier })}`,
    );
    expect(foreign.status).toBe(404);
  });

  it("answers 400 for a missing templateIdentifier and 401 for bad credentials", async () => {
    const missing = await api.request("GET", `/api/embed/template?${query(creds(org))}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("templateIdentifier: is required");
    const bad = await api.request(
      "GET",
      `/api/embed/template?${query({ token: "cs_wrong", orgId: org.orgId, templateIdentifier: "x" })}`,
    );
    expect(bad.status).toBe(401);
  });
});

describe("F4 GET /api/embed/templates", () => {
  it("lists newest change first with identifier, title, status, updatedAt only", async () => {
    const fresh = await api.createOrg("Listing");
    for (const title of ["one", "two", "three"]) await create({ title }, fresh);
    const res = await api.request("GET", `/api/embed/templates?${query(creds(fresh))}`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.templates.map((t: { title: string }) => t.title)).toEqual(["three", "two", "one"]);
    expect(Object.keys(res.body.templates[0]).sort()).toEqual(["identifier", "status", "title", "updatedAt"]);
    const limited = await api.request("GET", `/api/embed/templates?${query({ ...creds(fresh), limit: 2 })}`);
    expect(limited.body.templates).toHaveLength(2);
  });

  it("defaults the limit to 300 and caps it at 300", async () => {
    const big = await api.createOrg("Big");
    for (let i = 0; i < 301; i++) await createTemplate(big.ctx, createTemplateInput.parse({ title: `T${i}` }));
    const all = await api.request("GET", `/api/embed/templates?${query(creds(big))}`);
    expect(all.body.templates).toHaveLength(300);
    expect(
      (await api.request("GET", `/api/embed/templates?${query({ ...creds(big), limit: 300 })}`)).body.templates,
    ).toHaveLength(300);
    for (const limit of ["301", "0", "-1", "2.5", "abc"]) {
      const res = await api.request("GET", `/api/embed/templates?${query({ ...creds(big), limit })}`);
      expect(res.status, `limit=${limit}`).toBe(400);
      expect(res.body.fieldErrors[0].key).toBe("limit");
    }
  });

  it("never shows another organization's templates", async () => {
    const res = await api.request("GET", `/api/embed/templates?${query(creds(other))}`);
    expect(res.body.templates).toEqual([]);
    expect(
      (await api.request("GET", `/api/embed/templates?${query({ token: other.token, orgId: org.orgId })}`)).status,
    ).toBe(401);
  });
});

describe("F5 PATCH and F6 DELETE /api/embed/templates/{identifier}", () => {
  it("changes only the fields sent and answers with the whole template", async () => {
    const t = (await create({ title: "Before", description: "keep me" })).body.template;
    const res = await api.request("PATCH", `/api/embed/templates/${t.identifier}`, {
      body: { ...creds(org), status: "active" },
    });
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.template).toMatchObject({
      identifier: t.identifier,
      title: "Before",
      description: "keep me",
      status: "active",
    });
    expect(Date.parse(res.body.template.updatedAt)).toBeGreaterThanOrEqual(Date.parse(t.updatedAt));
    expect(
      (await api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), title: "" } }))
        .status,
    ).toBe(400);
    expect(
      (await api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), status: "gone" } }))
        .status,
    ).toBe(400);
  });

  it("answers 404 for another organization's template and leaves it untouched", async () => {
    const t = (await create({ title: "Mine" })).body.template;
    const patch = await api.request("PATCH", `/api/embed/templates/${t.identifier}`, {
      body: { ...creds(other), title: "Hijacked" },
    });
    expect(patch.status).toBe(404);
    const del = await api.request("DELETE", `/api/embed/templates/${t.identifier}`, { body: creds(other) });
    expect(del.status).toBe(404);
    const still = await api
      .trpc({ bearer: org.token })
      .templates.get.query({ identifier: t.identifier, activeOnly: false });
    expect(still.title).toBe("Mine");
  });

  it("deletes once, then 404, and audits template.updated and template.deleted", async () => {
    const t = (await create({ title: "Doomed" })).body.template;
    await api.request("PATCH", `/api/embed/templates/${t.identifier}`, { body: { ...creds(org), title: "Doomed 2" } });
    const res = await api.request("DELETE", `/api/embed/templates/${t.identifier}`, { body: creds(org) });
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    expect((await api.request("DELETE", `/api/embed/templates/${t.identifier}`, { body: creds(org) })).status).toBe(
      404,
    );
    const actions = await api.services.db
      .select({ action: auditLog.action, metadata: auditLog.metadata })
      .from(auditLog)
      .where(eq(auditLog.templateIdentifier, t.identifier))
      .orderBy(auditLog.seq);
    expect(actions).toEqual([
      { action: "template.created", metadata: { title: "Doomed", status: "draft" } },
      { action: "template.updated", metadata: { changed: ["title"] } },
      { action: "template.deleted", metadata: { title: "Doomed 2" } },
    ]);
  });
});

describe("the tRPC door runs the same procedures", () => {
  it("works with a bearer token and with a staff session, scoped to the organization", async () => {
    const viaToken = await api.trpc({ bearer: org.token }).templates.create.mutate({ title: "Via tRPC" });
    expect(viaToken).toMatchObject({ title: "Via tRPC", status: "draft", schema: { version: 1, fields: [] } });

    const cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    const staff = api.trpc({ cookie });
    const list = await staff.templates.list.query({});
    expect(list.some((t) => t.identifier === viaToken.identifier)).toBe(true);
    const updated = await staff.templates.update.mutate({ identifier: viaToken.identifier, status: "active" });
    expect(updated.status).toBe("active");

    const foreign = api.trpc({ bearer: other.token });
    await expect(
      foreign.templates.get.query({ identifier: viaToken.identifier, activeOnly: false }),
    ).rejects.toMatchObject({
      data: { code: "NOT_FOUND", httpStatus: 404 },
    });
  });

  it("reports validation problems as BAD_REQUEST with field errors", async () => {
    const error = await api
      .trpc({ bearer: org.token })
      .templates.create.mutate({ title: "x".repeat(121) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({
      httpStatus: 400,
      appCode: "invalid_request",
      fieldErrors: [{ key: "title", message: "must be 1 to 120 characters" }],
    });
  });

  it("refuses calls without credentials", async () => {
    await expect(api.trpc({}).templates.list.query({})).rejects.toMatchObject({ data: { httpStatus: 401 } });
  });
});

describe("the staff console's template list", () => {
  it("counts each template's questions and submissions, for staff of its organization only", async () => {
    const o = await api.createOrg("Overview clinic");
    const schema = {
      version: 1,
      fields: [
        { id: "h", type: "heading", label: "About you" },
        { id: "1", type: "text", key: "name", label: "Name" },
        { id: "2", type: "checkbox", key: "ok", label: "OK" },
      ],
    };
    const used = (await create({ title: "Used", status: "active", schema }, o)).body.template;
    const unused = (await create({ title: "Unused", status: "draft" }, o)).body.template;
    for (const name of ["A", "B"]) {
      const sent = await api.request("POST", "/api/embed/submit", {
        body: { ...creds(o), templateIdentifier: used.identifier, values: { name } },
      });
      expect(sent.status).toBe(200);
    }
    const cookie = await logInCookie(api, o.ownerEmail, o.ownerPassword);
    const { items } = await api.trpc({ cookie }).templates.overview.query({});
    expect(items.find((i) => i.identifier === used.identifier)).toMatchObject({
      title: "Used",
      status: "active",
      fieldCount: 2,
      submissionCount: 2,
    });
    expect(items.find((i) => i.identifier === unused.identifier)).toMatchObject({ fieldCount: 0, submissionCount: 0 });
    expect(items).toHaveLength(2);
    // Another organization's staff see none of them; an API token is not a staff session.
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    expect(
      (await api.trpc({ cookie: otherCookie }).templates.overview.query({})).items.some(
        (i) => i.identifier === used.identifier,
      ),
    ).toBe(false);
    await expect(api.trpc({ bearer: o.token }).templates.overview.query({})).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });

  it("pages with the list contract, searches titles (wildcards taken literally) and filters by status", async () => {
    const o = await api.createOrg("Paging clinic");
    for (const title of ["Anamnese A", "Anamnese B", "Consent 100%", "Consent_x"])
      await create({ title, status: "draft" }, o);
    await create({ title: "Anamnese active", status: "active" }, o);
    const cookie = await logInCookie(api, o.ownerEmail, o.ownerPassword);
    const overview = (input: Parameters<ReturnType<typeof api.trpc>["templates"]["overview"]["query"]>[0]) =>
      api.trpc({ cookie }).templates.overview.query(input);
    const first = await overview({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    // A template changed meanwhile moves to the top; the next pages neither repeat nor skip the rest.
    await create({ title: "Newest", status: "draft" }, o);
    const second = await overview({ limit: 2, cursor: first.nextCursor! });
    const third = await overview({ limit: 2, cursor: second.nextCursor! });
    const seen = [...first.items, ...second.items, ...third.items].map((i) => i.title);
    expect(new Set(seen).size).toBe(5);
    expect(seen).not.toContain("Newest");
    expect(third.nextCursor).toBeNull();
    expect((await overview({ q: "anamnese" })).items.map((i) => i.title).sort()).toEqual([
      "Anamnese A",
      "Anamnese B",
      "Anamnese active",
    ]);
    expect((await overview({ q: "100%" })).items.map((i) => i.title)).toEqual(["Consent 100%"]);
    expect((await overview({ q: "_" })).items.map((i) => i.title)).toEqual(["Consent_x"]);
    expect((await overview({ status: "active" })).items.map((i) => i.title)).toEqual(["Anamnese active"]);
    await expect(overview({ cursor: "bm90LWEtY3Vyc29y" })).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });
});
