import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, desc, eq, ssoSignInAttempts, users } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../../testing/harness";
import { startTestDnsServer, type TestDnsServer } from "../../../testing/dns-server";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../../testing/oidc-provider";
import { clearOidcCaches, oidcJwksCache } from "./oidc";
import { SSO_COOKIE } from "./sign-in";
import { createStaffUser } from "../store/accounts";
import { STAFF_SESSION_COOKIE } from "../cookies";

const WEB = "http://web.clinsign.test";
let idp: TestIdentityProvider;
let dns: TestDnsServer;
let api: TestApi;

beforeAll(async () => {
  idp = await startTestIdentityProvider({ redirectUris: [`${WEB}/sso/callback`] });
  dns = await startTestDnsServer();
  api = await startTestApi({ PUBLIC_WEB_URL: WEB, OUTBOUND_ALLOW_HOSTS: idp.hostPort, DNS_RESOLVERS: dns.resolver });
});
afterAll(async () => {
  await api?.close();
  await idp?.close();
  await dns?.close();
});

const mapping = [
  { value: "cs-admins", role: "admin" as const },
  { value: "cs-staff", role: "staff" as const },
];

/** An organization whose owner has connected the test provider for `domain` and proven the domain in DNS. */
async function ssoOrg(domain: string, extra: { ssoOnly?: boolean } = {}): Promise<TestOrg & { ownerCookie: string }> {
  const org = await api.createOrg();
  const ownerCookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  const owner = api.trpc({ cookie: ownerCookie });
  const settings = await owner.organization.sso.query();
  const saved = await owner.organization.saveSso.mutate({
    stepUp: { method: "password", password: org.ownerPassword },
    enabled: true,
    displayName: "Klinik-Login",
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    allowedDomains: [domain],
    roleClaim: "groups",
    roleMapping: mapping,
    ssoOnly: extra.ssoOnly ?? false,
    breakGlassUserId: extra.ssoOnly ? settings.owners[0]!.id : null,
  });
  const claim = saved.domains.find((d) => d.domain === domain)!;
  dns.setTxt(claim.txtName, [claim.txtValue]);
  expect(await owner.organization.verifySsoDomain.mutate({ domain })).toEqual({
    domain,
    verified: true,
    problem: null,
  });
  return { ...org, ownerCookie };
}

interface Started {
  location: string;
  binding: string;
}

async function start(orgId: string): Promise<Started> {
  const response = await fetch(`${api.baseUrl}/sso/start?org=${orgId}`, { redirect: "manual" });
  expect(response.status).toBe(303);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith(`${SSO_COOKIE}=`))!;
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/Max-Age=600/);
  return { location: response.headers.get("location")!, binding: cookie.split(";")[0]! };
}

interface Landed {
  location: string;
  staffSessionCookie: string | null;
}

/** Sends the provider's redirect back to the API's callback, as the web app passes it on. */
async function callback(callbackUrl: string, binding: string | null): Promise<Landed> {
  const url = new URL(callbackUrl);
  expect(url.origin + url.pathname).toBe(`${WEB}/sso/callback`);
  const response = await fetch(`${api.baseUrl}/sso/callback${url.search}`, {
    redirect: "manual",
    headers: binding ? { cookie: binding } : {},
  });
  expect(response.status).toBe(303);
  const staffSessionCookie = response.headers.getSetCookie().find((c) => c.startsWith(`${STAFF_SESSION_COOKIE}=`));
  return {
    location: response.headers.get("location")!,
    staffSessionCookie: staffSessionCookie ? staffSessionCookie.split(";")[0]! : null,
  };
}

async function signIn(orgId: string, login: string): Promise<Landed> {
  const started = await start(orgId);
  return callback(await idp.signIn(started.location, login), started.binding);
}

async function lastEntry(orgId: string, action: string) {
  const [entry] = await api.services.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.organizationId, orgId), eq(auditLog.action, action)))
    .orderBy(desc(auditLog.seq))
    .limit(1);
  return entry;
}

const refusedTo = (orgId: string, error: string) => `${WEB}/login/${orgId}?sso_error=${error}`;

describe("single sign-on with OpenID Connect", () => {
  it("signs a new member in through the provider: PKCE S256, state and nonce, a JIT account with the mapped role", async () => {
    const org = await ssoOrg("praxis-eins.example");
    idp.users.set("anna", {
      email: "Anna.Berg@praxis-eins.example",
      name: "Anna Berg",
      groups: ["other", "cs-admins"],
    });
    const started = await start(org.orgId);
    const authorize = new URL(started.location);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${WEB}/sso/callback`);

    const landed = await callback(await idp.signIn(started.location, "anna"), started.binding);
    expect(landed.location).toBe(`${WEB}/`);
    const me = await api.trpc({ cookie: landed.staffSessionCookie! }).auth.me.query();
    expect(me).toMatchObject({
      user: { email: "anna.berg@praxis-eins.example", name: "Anna Berg" },
      organization: { id: org.orgId },
      role: "admin",
    });
    expect((await lastEntry(org.orgId, "staff.signed_in"))?.metadata).toEqual({ method: "sso" });
    expect((await lastEntry(org.orgId, "staff.member_added"))?.metadata).toEqual({
      via: "sso",
      role: "admin",
      created: true,
    });
    // The account has no password: its provider is its only way in.
    const [user] = await api.services.db.select().from(users).where(eq(users.email, "anna.berg@praxis-eins.example"));
    expect(user!.passwordHash).toBeNull();
    // The state was single use and is gone.
    expect(
      await api.services.db.select().from(ssoSignInAttempts).where(eq(ssoSignInAttempts.organizationId, org.orgId)),
    ).toEqual([]);
  });

  it("refuses a forged state and a state brought back by another browser", async () => {
    const org = await ssoOrg("praxis-zwei.example");
    idp.users.set("ben", { email: "ben@praxis-zwei.example", groups: ["cs-staff"] });
    const started = await start(org.orgId);
    const back = new URL(await idp.signIn(started.location, "ben"));

    const forged = new URL(back);
    forged.searchParams.set("state", "forged-state-value-that-was-never-issued-xx");
    const refusedForged = await callback(forged.toString(), started.binding);
    expect(refusedForged).toEqual({ location: `${WEB}/login?sso_error=expired`, staffSessionCookie: null });

    const elsewhere = await callback(back.toString(), `${SSO_COOKIE}=someone-elses-browser`);
    expect(elsewhere).toEqual({ location: refusedTo(org.orgId, "expired"), staffSessionCookie: null });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toEqual({ reason: "browser_mismatch" });
    // The state died with that attempt: the right browser cannot use it afterwards either.
    expect((await callback(back.toString(), started.binding)).staffSessionCookie).toBeNull();
  });

  it("refuses a state older than ten minutes", async () => {
    const org = await ssoOrg("praxis-dreizehn.example");
    idp.users.set("lena", { email: "lena@praxis-dreizehn.example", groups: ["cs-staff"] });
    const started = await start(org.orgId);
    const back = await idp.signIn(started.location, "lena");
    await api.services.db
      .update(ssoSignInAttempts)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(ssoSignInAttempts.organizationId, org.orgId));
    expect(await callback(back, started.binding)).toEqual({
      location: refusedTo(org.orgId, "expired"),
      staffSessionCookie: null,
    });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toEqual({ reason: "state_expired" });
  });

  it("refuses a replayed callback, and the provider refuses a code redeemed twice", async () => {
    const org = await ssoOrg("praxis-drei.example");
    idp.users.set("carla", { email: "carla@praxis-drei.example", groups: ["cs-staff"] });
    const started = await start(org.orgId);
    const back = await idp.signIn(started.location, "carla");
    expect((await callback(back, started.binding)).staffSessionCookie).not.toBeNull();
    expect(await callback(back, started.binding)).toEqual({
      location: `${WEB}/login?sso_error=expired`,
      staffSessionCookie: null,
    });

    // The same code under a fresh state of this browser: the provider will not hand out a second token.
    const again = await start(org.orgId);
    const replay = new URL(back);
    replay.searchParams.set("state", new URL(again.location).searchParams.get("state")!);
    expect(await callback(replay.toString(), again.binding)).toEqual({
      location: refusedTo(org.orgId, "failed"),
      staffSessionCookie: null,
    });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toMatchObject({
      reason: "token_exchange_failed",
    });
  });

  describe("ID tokens the provider's token endpoint answers with changes", () => {
    let org: TestOrg;
    beforeAll(async () => {
      org = await ssoOrg("praxis-vier.example");
      idp.users.set("dora", { email: "dora@praxis-vier.example", groups: ["cs-staff"] });
    });
    afterAll(() => idp.tamperIdToken(null));

    const cases = [
      {
        name: "a wrong nonce",
        change: (c: Record<string, unknown>) => ({ ...c, nonce: "not-the-nonce-we-sent" }),
        reason: "nonce_mismatch",
      },
      {
        name: "another issuer",
        change: (c: Record<string, unknown>) => ({ ...c, iss: "https://evil.example" }),
        reason: "issuer_mismatch",
      },
      {
        name: "another audience",
        change: (c: Record<string, unknown>) => ({ ...c, aud: "someone-else" }),
        reason: "audience_mismatch",
      },
      {
        name: "our client among audiences, issued to another party",
        change: (c: Record<string, unknown>) => ({ ...c, aud: [idp.clientId, "other"], azp: "other" }),
        reason: "azp_mismatch",
      },
      {
        name: "an expired token",
        change: (c: Record<string, unknown>) => ({
          ...c,
          iat: Math.floor(Date.now() / 1000) - 7200,
          exp: Math.floor(Date.now() / 1000) - 3600,
        }),
        reason: "token_expired",
      },
    ];
    for (const { name, change, reason } of cases) {
      it(`refuses ${name}`, async () => {
        idp.tamperIdToken(change);
        expect(await signIn(org.orgId, "dora")).toEqual({
          location: refusedTo(org.orgId, "failed"),
          staffSessionCookie: null,
        });
        expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toMatchObject({ reason });
      });
    }

    it("refuses a token signed by a key the provider does not publish", async () => {
      idp.tamperIdToken((c) => c, "foreign");
      expect((await signIn(org.orgId, "dora")).staffSessionCookie).toBeNull();
      expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toMatchObject({ reason: "bad_id_token" });
    });

    it("accepts the untouched token (the cases above fail for their reason only)", async () => {
      idp.tamperIdToken(null);
      expect((await signIn(org.orgId, "dora")).staffSessionCookie).not.toBeNull();
    });
  });

  it("follows a key rotation at the provider: the unknown kid refetches the JWKS once", async () => {
    const org = await ssoOrg("praxis-fuenf.example");
    idp.users.set("emil", { email: "emil@praxis-fuenf.example", groups: ["cs-staff"] });
    expect((await signIn(org.orgId, "emil")).staffSessionCookie).not.toBeNull();
    await idp.rotateKeys();
    const realNow = oidcJwksCache.now;
    // Past the 30 s between refetches of one URL.
    oidcJwksCache.now = () => Date.now() + 60_000;
    try {
      expect((await signIn(org.orgId, "emil")).staffSessionCookie).not.toBeNull();
    } finally {
      oidcJwksCache.now = realNow;
      clearOidcCaches();
    }
  });

  it("refuses an address outside the allowed domains and creates no account", async () => {
    const org = await ssoOrg("praxis-sechs.example");
    idp.users.set("fritz", { email: "fritz@elsewhere.example", groups: ["cs-admins"] });
    expect(await signIn(org.orgId, "fritz")).toEqual({
      location: refusedTo(org.orgId, "domain"),
      staffSessionCookie: null,
    });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toEqual({
      reason: "domain_not_allowed",
      domain: "elsewhere.example",
    });
    expect(await api.services.db.select().from(users).where(eq(users.email, "fritz@elsewhere.example"))).toEqual([]);
  });

  it("re-applies the mapping at each sign-in: a new role is recorded, a removed group loses access", async () => {
    const org = await ssoOrg("praxis-sieben.example");
    idp.users.set("greta", { email: "greta@praxis-sieben.example", groups: ["cs-staff"] });
    const first = await signIn(org.orgId, "greta");
    expect((await api.trpc({ cookie: first.staffSessionCookie! }).auth.me.query()).role).toBe("staff");

    idp.users.set("greta", { email: "greta@praxis-sieben.example", groups: ["cs-admins", "cs-staff"] });
    const promoted = await signIn(org.orgId, "greta");
    expect((await api.trpc({ cookie: promoted.staffSessionCookie! }).auth.me.query()).role).toBe("admin");
    expect((await lastEntry(org.orgId, "staff.role_changed"))?.metadata).toEqual({
      via: "sso",
      from: "staff",
      to: "admin",
    });

    idp.users.set("greta", { email: "greta@praxis-sieben.example", groups: ["somewhere-else"] });
    expect(await signIn(org.orgId, "greta")).toEqual({
      location: refusedTo(org.orgId, "no_role"),
      staffSessionCookie: null,
    });
    expect((await lastEntry(org.orgId, "staff.member_removed"))?.metadata).toEqual({
      via: "sso",
      reason: "no_mapped_role",
      role: "admin",
    });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toMatchObject({
      reason: "no_role",
      userId: (await lastEntry(org.orgId, "staff.member_removed"))?.actorId,
    });
    // The sessions opened before end with the membership.
    await expect(api.trpc({ cookie: promoted.staffSessionCookie! }).auth.me.query()).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });

  it("gives no account to someone whose groups map to no role", async () => {
    const org = await ssoOrg("praxis-acht.example");
    idp.users.set("hans", { email: "hans@praxis-acht.example", groups: [] });
    expect(await signIn(org.orgId, "hans")).toEqual({
      location: refusedTo(org.orgId, "no_role"),
      staffSessionCookie: null,
    });
    expect(await api.services.db.select().from(users).where(eq(users.email, "hans@praxis-acht.example"))).toEqual([]);
  });

  it("SSO only: members' passwords are refused, the break-glass owner's still works", async () => {
    const org = await ssoOrg("praxis-neun.example", { ssoOnly: true });
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "ida@praxis-neun.example",
      password: "ida-password-1",
      role: "admin",
    });
    const refused = await fetch(`${api.baseUrl}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ida@praxis-neun.example", password: "ida-password-1" }),
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "your organization signs in with single sign-on",
    );
    expect((await lastEntry(org.orgId, "staff.sign_in_refused"))?.metadata).toEqual({
      reason: "sso_only",
      method: "password",
    });
    // A wrong password still reads as a wrong password: SSO-only reveals nothing before the password is right.
    const wrong = await fetch(`${api.baseUrl}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ida@praxis-neun.example", password: "not-her-password" }),
    });
    expect(wrong.status).toBe(401);
    expect(await logInCookie(api, org.ownerEmail, org.ownerPassword)).toMatch(new RegExp(`^${STAFF_SESSION_COOKIE}=`));
  });

  it("lets admins read and owners change the settings, with a step-up; the client secret never comes back; each change is audited", async () => {
    const org = await ssoOrg("praxis-zehn.example");
    const member = async (email: string, role: "staff" | "admin") => {
      await createStaffUser(api.services, { organizationId: org.orgId, email, password: "member-password-1", role });
      return api.trpc({ cookie: await logInCookie(api, email, "member-password-1") });
    };
    const staff = await member("jana@praxis-zehn.example", "staff");
    await expect(staff.organization.sso.query()).rejects.toMatchObject({ data: { httpStatus: 403 } });

    const owner = api.trpc({ cookie: org.ownerCookie });
    const settings = await owner.organization.sso.query();
    expect(settings).toMatchObject({
      enabled: true,
      hasClientSecret: true,
      allowedDomains: ["praxis-zehn.example"],
      domains: [{ domain: "praxis-zehn.example", verified: true }],
      redirectUri: `${WEB}/sso/callback`,
    });
    expect(JSON.stringify(settings)).not.toContain(idp.clientSecret);
    const entry = await lastEntry(org.orgId, "sso.settings_updated");
    expect(JSON.stringify(entry?.metadata)).not.toContain(idp.clientSecret);

    const {
      configured: _c,
      hasClientSecret: _h,
      redirectUri: _r,
      loginUrl: _l,
      owners: _o,
      updatedAt: _u,
      domains: _d,
      ...current
    } = settings;
    const stepUp = { method: "password" as const, password: org.ownerPassword };
    const input = { ...current, stepUp };
    // An admin reads the settings but cannot change them.
    const admin = await member("kai@praxis-zehn.example", "admin");
    expect((await admin.organization.sso.query()).issuer).toBe(idp.issuer);
    await expect(
      admin.organization.saveSso.mutate({ ...input, stepUp: { method: "password", password: "member-password-1" } }),
    ).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    // Without the owner's password in the same call nothing changes.
    await expect(
      owner.organization.saveSso.mutate({
        ...input,
        displayName: "X",
        stepUp: { method: "password", password: "wrong" },
      }),
    ).rejects.toMatchObject({ data: { httpStatus: 400, details: { field: "stepUp", reason: "step_up_failed" } } });
    // A public mail domain, an issuer that is not an OpenID provider, SSO-only without a break-glass owner.
    await expect(owner.organization.saveSso.mutate({ ...input, allowedDomains: ["gmail.com"] })).rejects.toMatchObject({
      data: { httpStatus: 400, details: { field: "allowedDomains" } },
    });
    await expect(
      owner.organization.saveSso.mutate({ ...input, issuer: `${idp.issuer}/not-here` }),
    ).rejects.toMatchObject({ data: { httpStatus: 400, details: { field: "issuer" } } });
    await expect(
      owner.organization.saveSso.mutate({ ...input, ssoOnly: true, breakGlassUserId: null }),
    ).rejects.toMatchObject({ data: { httpStatus: 400 } });
    // Saved without a new secret: the stored one stays and still works.
    await owner.organization.saveSso.mutate({ ...input, displayName: "Zehn-Login" });
    expect((await lastEntry(org.orgId, "sso.settings_updated"))?.metadata).toMatchObject({ changed: ["displayName"] });
    expect((await owner.organization.sso.query()).domains).toMatchObject([
      { domain: "praxis-zehn.example", verified: true },
    ]);
    idp.users.set("karl", { email: "karl@praxis-zehn.example", groups: ["cs-staff"] });
    expect((await signIn(org.orgId, "karl")).staffSessionCookie).not.toBeNull();
  });

  it("tells the login page the provider of an e-mail domain or an organization, and nothing about accounts", async () => {
    const org = await ssoOrg("praxis-elf.example");
    const anyone = api.trpc({});
    expect(await anyone.auth.ssoProvider.query({ email: "whoever@praxis-elf.example" })).toEqual({
      provider: { organizationId: org.orgId, displayName: "Klinik-Login" },
    });
    expect(await anyone.auth.ssoProvider.query({ email: "whoever@unknown.example" })).toEqual({ provider: null });
    // A claim nobody proved routes nowhere.
    const claimant = await ssoOrg("praxis-elf-b.example");
    const owner = api.trpc({ cookie: claimant.ownerCookie });
    const {
      configured: _c,
      hasClientSecret: _h,
      redirectUri: _r,
      loginUrl: _l,
      owners: _o,
      updatedAt: _u,
      domains: _d,
      ...input
    } = await owner.organization.sso.query();
    await owner.organization.saveSso.mutate({
      ...input,
      allowedDomains: ["praxis-elf-b.example", "unbewiesen.example"],
      stepUp: { method: "password", password: claimant.ownerPassword },
    });
    expect(await anyone.auth.ssoProvider.query({ email: "whoever@unbewiesen.example" })).toEqual({ provider: null });
    expect(await anyone.auth.ssoProvider.query({ organizationId: org.orgId })).toEqual({
      provider: { organizationId: org.orgId, displayName: "Klinik-Login" },
    });
    const plain = await api.createOrg();
    expect(await anyone.auth.ssoProvider.query({ organizationId: plain.orgId })).toEqual({ provider: null });
    // Starting where no provider is set up lands on the login page, not an error.
    const response = await fetch(`${api.baseUrl}/sso/start?org=${plain.orgId}`, { redirect: "manual" });
    expect(response.headers.get("location")).toBe(`${WEB}/login/${plain.orgId}?sso_error=unavailable`);
  });

  it("lands a cancelled sign-in on the login page", async () => {
    const org = await ssoOrg("praxis-zwoelf.example");
    const started = await start(org.orgId);
    const state = new URL(started.location).searchParams.get("state")!;
    expect(await callback(`${WEB}/sso/callback?error=access_denied&state=${state}`, started.binding)).toEqual({
      location: refusedTo(org.orgId, "cancelled"),
      staffSessionCookie: null,
    });
    expect((await lastEntry(org.orgId, "staff.sso_refused"))?.metadata).toEqual({
      reason: "provider_error",
      error: "access_denied",
    });
  });
});
