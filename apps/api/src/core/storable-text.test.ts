import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drafts, eq, templates } from "@clinsign/db";
import { activeTemplate, creds, query } from "../testing/forms";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { bearer } from "../testing/signature-fixtures";
import { assertStorableInput } from "./storable-text";

let api: TestApi;
let org: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg();
});
afterAll(() => api?.close());

const NUL = "a\u0000b";
const LONE = "x\ud800y";

/** The tRPC error of a rejected call, with the app's data. */
async function trpcError(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  return (error as TRPCClientError<never>).data as unknown as { httpStatus: number; details?: { field?: string } };
}

describe("NUL and unpaired surrogates", () => {
  it("area B: 400 naming the field in JSON bodies (also inside values and their keys) and query parameters", async () => {
    const t = await activeTemplate(org);
    const template = await api.request("POST", "/api/embed/templates", { body: { ...creds(org), title: NUL } });
    expect(template.status).toBe(400);
    expect(template.body).toMatchObject({
      ok: false,
      error: expect.stringContaining("title"),
      fieldErrors: [{ key: "title" }],
    });
    for (const [values, field] of [
      [{ name: LONE }, "values.name"],
      [{ name: NUL }, "values.name"],
      [{ [`na${"\u0000"}me`]: "x" }, "values.?"],
    ] as const) {
      const draft = await api.request("POST", "/api/embed/drafts", {
        body: { ...creds(org), templateIdentifier: t.identifier, draftKey: "k1", values },
      });
      expect(draft.status, field).toBe(400);
      expect(draft.body.fieldErrors, field).toEqual([
        { key: field, message: "must not contain NUL characters or unpaired surrogates" },
      ]);
    }
    const submit = await api.request("POST", "/api/embed/submit", {
      body: { ...creds(org), templateIdentifier: t.identifier, values: { name: LONE } },
    });
    expect(submit.status).toBe(400);
    const get = await api.request(
      "GET",
      `/api/embed/drafts?${query({ ...creds(org), templateIdentifier: t.identifier, draftKey: NUL })}`,
    );
    expect(get.status).toBe(400);
    expect(get.body.fieldErrors).toEqual([{ key: "draftKey", message: expect.any(String) }]);
    const audit = await api.request("GET", `/api/embed/audit-logs?${query({ ...creds(org), action: NUL })}`);
    expect(audit.status).toBe(400);
    expect(await api.services.db.select().from(drafts).where(eq(drafts.organizationId, org.orgId))).toEqual([]);
    expect(await api.services.db.select().from(templates).where(eq(templates.title, "a\uFFFDb"))).toEqual([]);
  });

  it("area A: 400 invalid_request in its envelope for bodies, query parameters and path segments", async () => {
    const a6 = await api.request("POST", "/documents", {
      headers: bearer(org),
      body: {
        document_name: NUL,
        signingfield_koordinates: { page: 1, x: 1, y: 1, width: 10, height: 10 },
        document_bloburl: "https://example.org/x.pdf",
      },
    });
    expect(a6.status).toBe(400);
    expect(a6.body.error).toMatchObject({ code: "invalid_request", details: { field: "document_name" } });
    const a3 = await api.request("GET", `/signature-requests/completed?patient_id=${encodeURIComponent(NUL)}`, {
      headers: bearer(org),
    });
    expect(a3.status).toBe(400);
    expect(a3.body.error).toMatchObject({ code: "invalid_request", details: { field: "patient_id" } });
    const a8 = await api.request("PUT", "/documents/%00", { headers: bearer(org), body: { title: "x" } });
    expect(a8.status).toBe(400);
    expect(a8.body.error).toMatchObject({ code: "invalid_request", details: { field: "id" } });
    const design = await api.request("POST", "/design", {
      headers: bearer(org),
      body: { institution_id: LONE, design_parameters: {} },
    });
    expect(design.status).toBe(400);
    expect(design.body.error.details.field).toBe("institution_id");
  });

  it("tRPC: 400 naming the field, for mutations, queries and public procedures", async () => {
    const client = api.trpc({ bearer: org.token });
    const created = await trpcError(client.templates.create.mutate({ title: LONE }));
    expect(created).toMatchObject({ httpStatus: 400, details: { field: "title" } });
    const listed = await trpcError(client.audit.list.query({ action: NUL } as never));
    expect(listed).toMatchObject({ httpStatus: 400, details: { field: "action" } });
    const login = await trpcError(api.trpc({}).auth.login.mutate({ email: `a${"\u0000"}@b.de`, password: "x" }));
    expect(login).toMatchObject({ httpStatus: 400, details: { field: "email" } });
  });

  it("refuses input nested deeper than 64 levels, without overflowing the stack", async () => {
    const t = await activeTemplate(org);
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(() => assertStorableInput({ values: { name: deep } })).toThrow("nests deeper than 64 levels");
    const res = await api.request("POST", "/api/embed/drafts", {
      body: `{"token":"${org.token}","orgId":"${org.orgId}","templateIdentifier":"${t.identifier}","draftKey":"k","values":{"name":${"[".repeat(5000)}1${"]".repeat(5000)}}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.fieldErrors[0].message).toContain("nests deeper");
  });

  it("lets ordinary text through, paired surrogates included", () => {
    expect(() =>
      assertStorableInput({ title: "Anamnese 👩‍⚕️ ü", list: ["a", { b: "c" }], bytes: Buffer.from([0]) }),
    ).not.toThrow();
  });
});
