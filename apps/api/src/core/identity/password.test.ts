import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, users } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { STAFF_SESSION_COOKIE } from "./cookies";

let api: TestApi;
let org: TestOrg;
beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Praxis am Park");
});
afterAll(() => api?.close());

interface TrpcErrorBody {
  error: { message: string; data: { httpStatus: number; details: { retryAfterSeconds: number } } };
}

const login = (email: string, password: string, ip = "198.51.100.7") =>
  fetch(`${api.baseUrl}/trpc/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify({ email, password }),
  });

describe("staff login", () => {
  // The test runner's cost (N=2^10); the service's (N=2^15, 32 MiB) is crypto.test.ts's.
  it("stores a scrypt password hash, never the password", async () => {
    const [user] = await api.services.db.select().from(users).where(eq(users.email, org.ownerEmail));
    expect(user!.passwordHash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(user!.passwordHash).not.toContain(org.ownerPassword);
  });

  it("sets an HTTP-only SameSite session cookie that opens the admin procedures, and logout ends it", async () => {
    const res = await login(org.ownerEmail.toUpperCase(), org.ownerPassword);
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(new RegExp(`^${STAFF_SESSION_COOKIE}=[A-Za-z0-9_-]{43};`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    const pair = cookie.split(";")[0]!;
    const me = await api.trpc({ cookie: pair }).auth.me.query();
    expect(me).toMatchObject({
      user: { email: org.ownerEmail },
      organization: { id: org.orgId, name: "Praxis am Park" },
      role: "owner",
    });

    const out = await fetch(`${api.baseUrl}/trpc/auth.logout`, {
      method: "POST",
      headers: { cookie: pair, "content-type": "application/json" },
    });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toContain("Max-Age=0");
    await expect(api.trpc({ cookie: pair }).auth.me.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });
  });

  it("gives the same answer for an unknown user and a wrong password", async () => {
    const unknown = (await (
      await login("nobody@example.org", "whatever-pass", "198.51.100.8")
    ).json()) as TrpcErrorBody;
    const wrong = (await (await login(org.ownerEmail, "wrong-password", "198.51.100.8")).json()) as TrpcErrorBody;
    expect(unknown.error.message).toBe("wrong e-mail or password");
    expect(wrong.error.message).toBe("wrong e-mail or password");
    expect(unknown.error.data.httpStatus).toBe(401);
  });

  it("limits attempts per address: the 11th try in 15 minutes is 429 even with the right password", async () => {
    const victim = await api.createOrg();
    for (let i = 0; i < 10; i++)
      expect((await login(victim.ownerEmail, "guess-" + i, "203.0.113.50")).status).toBe(401);
    const blocked = await login(victim.ownerEmail, victim.ownerPassword, "203.0.113.50");
    expect(blocked.status).toBe(429);
    expect(((await blocked.json()) as TrpcErrorBody).error.data.details.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("counts an IPv6 client by its /64: a new address of the same network does not start a new count", async () => {
    const org = await api.createOrg();
    // 50 failed sign-ins per address in 15 minutes, each from another address of one /64.
    for (let i = 1; i <= 50; i++)
      expect((await login(`nobody-${i}@example.org`, "guess-" + i, `2001:db8:5:7::${i.toString(16)}`)).status).toBe(
        401,
      );
    expect((await login(org.ownerEmail, org.ownerPassword, "2001:db8:5:7:ffff:1:2:3")).status).toBe(429);
    expect((await login(org.ownerEmail, org.ownerPassword, "2001:db8:5:8::1")).status).toBe(200);
  });
});
