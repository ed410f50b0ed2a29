import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, institutionBranding } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { bearer } from "../../testing/signature-fixtures";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

const design = (method: "POST" | "PUT", body: Record<string, unknown>, o: TestOrg = org) => api.request(method, "/design", { headers: bearer(o), body });

describe("A5 /design", () => {
  it("POST creates (201), a second POST is 409; PUT replaces (200), PUT without a design is 404", async () => {
    const body = { institution_id: "clinic-1", logo_url: "https://cdn.example.org/logo.svg", design_parameters: { primaryColor: "#0A7F5A", accentColor: "#fc0", font: "Georgia" } };
    expect(await design("PUT", body)).toMatchObject({ status: 404, body: { error: { code: "not_found", details: { field: "institution_id" } } } });
    const created = await design("POST", body);
    expect(created).toMatchObject({ status: 201, body: { message: "Design saved successfully" } });
    const again = await design("POST", body);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", details: { reason: "design_exists" } });
    const replaced = await design("PUT", { institution_id: "clinic-1", design_parameters: { primaryColor: "#112233" } });
    expect(replaced).toMatchObject({ status: 200, body: { message: "Design saved successfully" } });
    const [row] = await api.services.db.select().from(institutionBranding).where(eq(institutionBranding.organizationId, org.orgId));
    // PUT replaces everything: what is not sent is cleared.
    expect(row).toMatchObject({ logoUrl: null, primaryColor: "#112233", accentColor: null, font: null });
    const actions = (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId))).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["branding.created", "branding.updated"]));
  });

  it("keeps institutions of different organizations apart", async () => {
    await design("POST", { institution_id: "shared-name", design_parameters: {} });
    expect((await design("PUT", { institution_id: "shared-name", design_parameters: {} }, other)).status).toBe(404);
    expect((await design("POST", { institution_id: "shared-name", design_parameters: {} }, other)).status).toBe(201);
  });

  it("refuses anything that could carry markup or CSS into the portal (400 naming the field)", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ design_parameters: { primaryColor: "red" } }, "design_parameters.primaryColor"],
      [{ design_parameters: { primaryColor: "#fff;background:url(https://evil)" } }, "design_parameters.primaryColor"],
      [{ design_parameters: { accentColor: "rgb(1,2,3)" } }, "design_parameters.accentColor"],
      [{ design_parameters: { accentColor: "#12345" } }, "design_parameters.accentColor"],
      [{ design_parameters: { font: "Comic Sans'; } body { display:none" } }, "design_parameters.font"],
      [{ design_parameters: { font: "Papyrus" } }, "design_parameters.font"],
      [{ design_parameters: { layout: "wide" } }, "design_parameters"],
      [{ design_parameters: { css: "body{}" } }, "design_parameters"],
      [{ design_parameters: "dark" }, "design_parameters"],
      [{ logo_url: "javascript:alert(1)" }, "logo_url"],
      [{ logo_url: "http://cdn.example.org/logo.png" }, "logo_url"],
      [{ logo_url: "data:image/svg+xml,<svg onload=alert(1)>" }, "logo_url"],
      [{ institution_id: "" }, "institution_id"],
      [{ institution_id: undefined }, "institution_id"],
    ];
    for (const [change, field] of cases) {
      const res = await design("POST", { institution_id: "clinic-x", ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field } });
    }
    expect((await api.request("POST", "/design", { body: { institution_id: "x" } })).status).toBe(401);
  });
});
