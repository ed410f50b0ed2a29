import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiTokens, eq } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { sha256Hex } from "../crypto";
import { authenticateApiToken } from "../credentials/api-tokens";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let admin: ReturnType<TestApi["trpc"]>;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg();
  other = await api.createOrg();
  admin = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
});
afterAll(() => api?.close());

describe("API tokens", () => {
  it("shows a new token once and stores only its hash", async () => {
    const created = await admin.tokens.create.mutate({ name: "HIS integration" });
    expect(created.token).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    expect(created.summary).toMatchObject({
      name: "HIS integration",
      prefix: created.token.slice(0, 11),
      lastUsedAt: null,
      revokedAt: null,
    });
    const [row] = await api.services.db.select().from(apiTokens).where(eq(apiTokens.id, created.id));
    expect(row!.tokenHash).toBe(sha256Hex(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    const listed = await admin.tokens.list.query();
    const mine = listed.find((t) => t.id === created.id)!;
    expect(mine).not.toHaveProperty("token");
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it("authenticates, records lastUsedAt, and refuses after revocation", async () => {
    const created = await admin.tokens.create.mutate({ name: "short-lived" });
    const principal = await authenticateApiToken(api.services.db, created.token, org.orgId);
    expect(principal).toEqual({ tokenId: created.id, organizationId: org.orgId });
    const used = (await admin.tokens.list.query()).find((t) => t.id === created.id)!;
    expect(used.lastUsedAt).not.toBeNull();
    const revoked = await admin.tokens.revoke.mutate({ id: created.id });
    expect(revoked.revokedAt).not.toBeNull();
    await expect(authenticateApiToken(api.services.db, created.token, org.orgId)).rejects.toMatchObject({
      code: "unauthorized",
    });
  });

  it("refuses unknown tokens, tokens of another organization, and junk", async () => {
    await expect(authenticateApiToken(api.services.db, org.token, other.orgId)).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(authenticateApiToken(api.services.db, "cs_" + "A".repeat(43))).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(authenticateApiToken(api.services.db, undefined)).rejects.toMatchObject({ code: "unauthorized" });
    await expect(authenticateApiToken(api.services.db, "x".repeat(5000))).rejects.toMatchObject({
      code: "unauthorized",
    });
  });

  it("cannot revoke another organization's token", async () => {
    const foreignTokens = await api
      .trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) })
      .tokens.list.query();
    await expect(admin.tokens.revoke.mutate({ id: foreignTokens[0]!.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(authenticateApiToken(api.services.db, other.token, other.orgId)).resolves.toBeTruthy();
  });

  it("is managed by owners and admins only", async () => {
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "nurse@example.org",
      password: "nurse-password",
      role: "staff",
    });
    const staff = api.trpc({ cookie: await logInCookie(api, "nurse@example.org", "nurse-password") });
    await expect(staff.tokens.list.query()).rejects.toMatchObject({ data: { httpStatus: 403 } });
    await expect(staff.tokens.create.mutate({ name: "nope" })).rejects.toMatchObject({ data: { httpStatus: 403 } });
    // A bearer token is no admin credential.
    await expect(api.trpc({ bearer: org.token }).tokens.list.query()).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });
});
