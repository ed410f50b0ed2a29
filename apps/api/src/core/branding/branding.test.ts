import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, institutionBranding } from "@clinsign/db";
import { ensureInstitution, getBranding } from "./branding";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { bearer } from "../../testing/signature-fixtures";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
});
afterAll(() => api?.close());

const design = (method: "POST" | "PUT", body: Record<string, unknown>, o: TestOrg = org) =>
  api.request(method, "/design", { headers: bearer(o), body });

describe("A5 /design", () => {
  it("POST creates (201), a second POST is 409; PUT replaces (200), PUT without a design is 404", async () => {
    const body = {
      institution_id: "clinic-1",
      logo_url: "https://cdn.example.org/logo.svg",
      design_parameters: { primaryColor: "#0A7F5A", accentColor: "#fc0", font: "Georgia" },
    };
    expect(await design("PUT", body)).toMatchObject({
      status: 404,
      body: { error: { code: "not_found", details: { field: "institution_id" } } },
    });
    const created = await design("POST", body);
    expect(created).toMatchObject({ status: 201, body: { message: "Design saved successfully" } });
    const again = await design("POST", body);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: "conflict", details: { reason: "design_exists" } });
    const replaced = await design("PUT", {
      institution_id: "clinic-1",
      design_parameters: { primaryColor: "#112233" },
    });
    expect(replaced).toMatchObject({ status: 200, body: { message: "Design saved successfully" } });
    const [row] = await api.services.db
      .select()
      .from(institutionBranding)
      .where(eq(institutionBranding.organizationId, org.orgId));
    // PUT replaces everything: what is not sent is cleared.
    expect(row).toMatchObject({ logoUrl: null, primaryColor: "#112233", accentColor: null, font: null });
    const actions = (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId))).map(
      (e) => e.action,
    );
    expect(actions).toEqual(expect.arrayContaining(["branding.created", "branding.updated"]));
    // The replacement is audited with what it changed, before and after.
    const [updated] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "branding.updated")));
    expect(updated!.metadata).toMatchObject({
      institutionId: "clinic-1",
      changed: ["accentColor", "font", "logoUrl", "primaryColor"],
      changes: {
        font: { from: "Georgia", to: null },
        logoUrl: { from: "https://cdn.example.org/logo.svg", to: null },
        primaryColor: { to: "#112233" },
      },
    });
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

describe("the organization's default branding", () => {
  it("is what institutions without their own show, while /design stays per institution", async () => {
    const o = await api.createOrg("Default brand clinic");
    const cookie = await logInCookie(api, o.ownerEmail, o.ownerPassword);
    const brand = {
      logo_url: "https://cdn.example.org/org.svg",
      design_parameters: { primaryColor: "#0A7F5A", font: "Georgia" as const },
    };
    expect(await api.trpc({ cookie }).organization.defaultBranding.query()).toBeNull();
    expect(await api.trpc({ cookie }).organization.setDefaultBranding.mutate(brand)).toEqual({
      logoUrl: "https://cdn.example.org/org.svg",
      primaryColor: "#0a7f5a",
      accentColor: null,
      font: "Georgia",
    });
    await design("POST", { institution_id: "own-brand", design_parameters: { primaryColor: "#112233" } }, o);
    const own = await ensureInstitution(o.ctx, "own-brand");
    const plain = await ensureInstitution(o.ctx, "no-brand");
    expect(await getBranding(o.ctx, own)).toMatchObject({ primaryColor: "#112233", logoUrl: null });
    expect(await getBranding(o.ctx, plain)).toMatchObject({
      primaryColor: "#0a7f5a",
      logoUrl: "https://cdn.example.org/org.svg",
    });
    // GET /design names an institution's own design only.
    await expect(
      api.trpc({ bearer: o.token }).signatures.getDesign.query({ institution_id: "no-brand" }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    // Another organization sees none of it.
    expect(await getBranding(other.ctx, plain)).toBeNull();
  });

  it("takes the same validation as /design and only from owners and admins", async () => {
    const o = await api.createOrg("Brand roles");
    const owner = await logInCookie(api, o.ownerEmail, o.ownerPassword);
    await expect(
      api
        .trpc({ cookie: owner })
        .organization.setDefaultBranding.mutate({ design_parameters: { primaryColor: "red" } }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await createStaffUser(api.services, {
      organizationId: o.orgId,
      email: "staff@brand.test",
      password: "staff-password-123",
      role: "staff",
    });
    const staff = await logInCookie(api, "staff@brand.test", "staff-password-123");
    await expect(
      api.trpc({ cookie: staff }).organization.setDefaultBranding.mutate({ design_parameters: {} }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
    expect(await api.trpc({ cookie: staff }).organization.defaultBranding.query()).toBeNull();
  });

  it("an institution's design and a logo upload follow the same rule: the staff role may look, not change", async () => {
    const o = await api.createOrg("Brand roles institutions");
    await createStaffUser(api.services, {
      organizationId: o.orgId,
      email: "staff@inst-brand.test",
      password: "staff-password-123",
      role: "staff",
    });
    await createStaffUser(api.services, {
      organizationId: o.orgId,
      email: "admin@inst-brand.test",
      password: "admin-password-123",
      role: "admin",
    });
    const staff = api.trpc({ cookie: await logInCookie(api, "staff@inst-brand.test", "staff-password-123") });
    const admin = api.trpc({ cookie: await logInCookie(api, "admin@inst-brand.test", "admin-password-123") });
    const brand = {
      institution_id: "station-7",
      logo_url: "https://cdn.example.org/station.svg",
      design_parameters: { primaryColor: "#0A7F5A" },
    };

    await expect(staff.signatures.createDesign.mutate(brand)).rejects.toMatchObject({ data: { httpStatus: 403 } });
    expect(
      await api.services.db.select().from(institutionBranding).where(eq(institutionBranding.organizationId, o.orgId)),
    ).toHaveLength(0);
    await admin.signatures.createDesign.mutate(brand);
    await expect(
      staff.signatures.replaceDesign.mutate({ ...brand, logo_url: "https://attacker.example.org/logo.svg" }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
    expect(await staff.signatures.getDesign.query({ institution_id: "station-7" })).toMatchObject({
      logoUrl: "https://cdn.example.org/station.svg",
    });
    // The API token (A5) and owners keep changing it.
    expect((await design("PUT", { ...brand, design_parameters: { primaryColor: "#112233" } }, o)).status).toBe(200);
    await api
      .trpc({ cookie: await logInCookie(api, o.ownerEmail, o.ownerPassword) })
      .signatures.replaceDesign.mutate(brand);

    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    const staffCookie = await logInCookie(api, "staff@inst-brand.test", "staff-password-123");
    const upload = await fetch(`${api.baseUrl}/staff/branding/logo`, {
      method: "POST",
      headers: { cookie: staffCookie, "content-type": "image/png" },
      body: png,
    });
    expect(upload.status).toBe(403);
    expect(
      await api.services.db.select().from(auditLog).where(eq(auditLog.action, "branding.logo_uploaded")),
    ).toHaveLength(0);
  });
});
