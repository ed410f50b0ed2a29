import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, memberships, messages, organizations, ssoIdentities, staffPasskeys } from "@clinsign/db";
import { startTestDnsServer, type TestDnsServer } from "../../testing/dns-server";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { startTestIdentityProvider, type TestIdentityProvider } from "../../testing/oidc-provider";
import { StaffBrowser } from "../../testing/staff-browser";
import { SoftwareAuthenticator } from "../../testing/webauthn";
import { SSO_LINK_COOKIE, STAFF_SESSION_COOKIE } from "./cookies";
import { relyingParty } from "./passkeys";
import { createStaffUser } from "./store/accounts";
import { totpCode, totpStep } from "./totp";

/**
 * Issue 30, "trust between organizations": each attack the review reproduced, through the real
 * doors (HTTP, tRPC, /sso/*), against two real OpenID providers on loopback (the attacker's and
 * the hospital's) and a loopback DNS server. Each failed on the code before the identity wing.
 */

const WEB = "http://web.clinsign.test";
let attackerIdp: TestIdentityProvider;
let hospitalIdp: TestIdentityProvider;
let dns: TestDnsServer;
let api: TestApi;

beforeAll(async () => {
  attackerIdp = await startTestIdentityProvider({ redirectUris: [`${WEB}/sso/callback`] });
  hospitalIdp = await startTestIdentityProvider({ redirectUris: [`${WEB}/sso/callback`] });
  dns = await startTestDnsServer();
  api = await startTestApi({
    PUBLIC_WEB_URL: WEB,
    OUTBOUND_ALLOW_HOSTS: `${attackerIdp.hostPort},${hospitalIdp.hostPort}`,
    DNS_RESOLVERS: dns.resolver,
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await attackerIdp?.close();
  await hospitalIdp?.close();
  await dns?.close();
});

const browser = () => new StaffBrowser(api.baseUrl);
let count = 0;
const unique = (tag: string) => `${tag}-${++count}-${Date.now().toString(36)}`;

/** A browser signed in with a password (no second factor on the account). */
async function signedIn(email: string, password: string, organizationId?: string): Promise<StaffBrowser> {
  const b = browser();
  const answer = await b.call("auth.login", { email, password, ...(organizationId && { organizationId }) });
  expect(answer.data).toMatchObject({ step: "done" });
  return b;
}

interface SsoOrg extends TestOrg {
  owner: StaffBrowser;
}

/** An organization whose owner connected `idp` for `domain` (proven in DNS unless `prove: false`). */
async function ssoOrg(
  idp: TestIdentityProvider,
  domain: string,
  options: { prove?: boolean; ssoOnly?: boolean } = {},
): Promise<SsoOrg> {
  const org = await api.createOrg(unique("Klinik"));
  const owner = await signedIn(org.ownerEmail, org.ownerPassword);
  const settings = (await owner.query("organization.sso")).data;
  const saved = await owner.call("organization.saveSso", {
    enabled: true,
    displayName: "Klinik-Login",
    issuer: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    allowedDomains: [domain],
    roleClaim: "groups",
    roleMapping: [
      { value: "cs-admins", role: "admin" },
      { value: "cs-staff", role: "staff" },
    ],
    ssoOnly: options.ssoOnly ?? false,
    breakGlassUserId: options.ssoOnly ? settings.owners[0].id : null,
    stepUp: { method: "password", password: org.ownerPassword },
  });
  expect(saved.status).toBe(200);
  if (options.prove !== false) await prove(owner, domain);
  return { ...org, owner };
}

/** Publishes the claim's TXT record in the loopback DNS and has the owner check it. */
async function prove(owner: StaffBrowser, domain: string) {
  const claim = (await owner.query("organization.sso")).data.domains.find(
    (d: { domain: string }) => d.domain === domain,
  );
  dns.setTxt(claim.txtName, [claim.txtValue]);
  const checked = await owner.call("organization.verifySsoDomain", { domain });
  expect(checked.data).toEqual({ domain, verified: true, problem: null });
}

const membershipsOf = (userId: string) =>
  api.services.db.select().from(memberships).where(eq(memberships.userId, userId));

async function auditActions(organizationId: string, actorId?: string) {
  const rows = await api.services.db
    .select({ action: auditLog.action, metadata: auditLog.metadata })
    .from(auditLog)
    .where(and(eq(auditLog.organizationId, organizationId), actorId ? eq(auditLog.actorId, actorId) : undefined));
  return rows;
}

/** Sets up the authenticator app with the password as step-up; returns its secret and recovery codes. */
async function addTotp(b: StaffBrowser, password: string) {
  const setup = await b.call("accountSecurity.totpStart");
  const step = totpStep();
  const confirmed = await b.call("accountSecurity.totpConfirm", {
    code: totpCode(setup.data.secret, step),
    stepUp: { method: "password", password },
  });
  expect(confirmed.status).toBe(200);
  return { secret: setup.data.secret as string, step, recoveryCodes: confirmed.data.recoveryCodes as string[] };
}

/** Registers a passkey with the password as step-up. */
async function addPasskey(b: StaffBrowser, password: string) {
  const authenticator = new SoftwareAuthenticator(relyingParty(api.services.config).origin);
  const options = await b.call("accountSecurity.passkeyOptions");
  const added = await b.call("accountSecurity.passkeyRegister", {
    name: "Laptop",
    response: authenticator.register(options.data),
    stepUp: { method: "password", password },
  });
  expect(added.status).toBe(200);
  return authenticator;
}

/** Passwordless passkey sign-in in a new browser. */
async function passkeySignIn(authenticator: SoftwareAuthenticator, organizationId?: string) {
  const b = browser();
  const options = await b.call("auth.passkeyOptions", { secondStep: false });
  const answer = await b.call("auth.passkeySignIn", {
    response: authenticator.assert(options.data),
    ...(organizationId && { organizationId }),
  });
  return { b, answer };
}

describe("cross-tenant account takeover through single sign-on (the review's critical finding)", () => {
  it("another organization's provider naming an owner's address gets no session, no membership and no link", async () => {
    const victimDomain = `${unique("opfer")}.example`;
    const victim = await api.createOrg(unique("Opfer"));
    const ownerEmail = `chefin@${victimDomain}`;
    const { userId: victimOwner } = await createStaffUser(api.services, {
      organizationId: victim.orgId,
      email: ownerEmail,
      password: "victim owner password",
      role: "owner",
    });
    // The attacker owns organization A and its provider, and claims the victim's domain.
    const attacker = await ssoOrg(attackerIdp, victimDomain, { prove: false });
    expect((await attacker.owner.call("organization.verifySsoDomain", { domain: victimDomain })).data).toEqual({
      domain: victimDomain,
      verified: false,
      problem: "not_found",
    });
    attackerIdp.users.set("mallory", { email: ownerEmail, groups: ["cs-admins"] });

    const mallory = browser();
    expect(await mallory.ssoSignIn(attackerIdp, attacker.orgId, "mallory")).toBe(
      `${WEB}/login/${attacker.orgId}?sso_error=domain`,
    );
    expect(mallory.jar[STAFF_SESSION_COOKIE]).toBeUndefined();

    // Even where the attacker's organization has proven the domain (a domain both share), the
    // provider's word is not enough: the account must prove itself first.
    await prove(attacker.owner, victimDomain);
    expect(await mallory.ssoSignIn(attackerIdp, attacker.orgId, "mallory")).toBe(`${WEB}/login/link`);
    expect(mallory.jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    expect(mallory.jar[SSO_LINK_COOKIE]).toBeDefined();
    expect((await mallory.call("auth.ssoLinkConfirm")).status).toBe(401);
    expect((await mallory.call("auth.ssoLinkPassword", { password: "a guess" })).status).toBe(401);
    expect((await mallory.query("auth.me")).status).toBe(401);
    // Nothing joined the victim's account to organization A, and it has no passkey to sign in with.
    expect((await membershipsOf(victimOwner)).map((m) => m.organizationId)).toEqual([victim.orgId]);
    expect(await api.services.db.select().from(ssoIdentities).where(eq(ssoIdentities.userId, victimOwner))).toEqual([]);
    expect(await api.services.db.select().from(staffPasskeys).where(eq(staffPasskeys.userId, victimOwner))).toEqual([]);
  });

  it("refuses an ID token without email_verified: true", async () => {
    const domain = `${unique("unbestaetigt")}.example`;
    const org = await ssoOrg(hospitalIdp, domain);
    hospitalIdp.users.set("vera", { email: `vera@${domain}`, groups: ["cs-staff"], emailVerified: false });
    const b = browser();
    expect(await b.ssoSignIn(hospitalIdp, org.orgId, "vera")).toBe(`${WEB}/login/${org.orgId}?sso_error=failed`);
    const refused = (await auditActions(org.orgId)).filter((e) => e.action === "staff.sso_refused");
    expect(refused.at(-1)?.metadata).toMatchObject({ reason: "email_unverified" });
  });

  it("the account's holder connects it by signing in with it (second factor included) and confirming", async () => {
    const groupDomain = `${unique("verbund")}.example`;
    const home = await api.createOrg(unique("Stammhaus"));
    const email = `ines@${groupDomain}`;
    const password = "ines home password";
    const { userId } = await createStaffUser(api.services, {
      organizationId: home.orgId,
      email,
      password,
      role: "staff",
    });
    const { secret } = await addTotp(await signedIn(email, password), password);
    const clinic = await ssoOrg(hospitalIdp, groupDomain);
    hospitalIdp.users.set("ines", { email, groups: ["cs-admins"] });

    const b = browser();
    expect(await b.ssoSignIn(hospitalIdp, clinic.orgId, "ines")).toBe(`${WEB}/login/link`);
    expect((await b.query("auth.ssoLinkDescribe")).data).toEqual({
      organization: { id: clinic.orgId, name: expect.any(String) },
      provider: "Klinik-Login",
      email,
      role: "admin",
      step: "password",
    });
    const afterPassword = await b.call("auth.ssoLinkPassword", { password });
    expect(afterPassword.data).toMatchObject({ step: "second_factor", methods: { totp: true } });
    const verified = await b.call("auth.verifyCode", { method: "totp", code: totpCode(secret, totpStep() + 1) });
    expect(verified.data).toEqual({ ok: true, step: "confirm_link" });
    expect(b.jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    expect((await b.query("auth.ssoLinkDescribe")).data).toMatchObject({ step: "confirm" });
    const confirmed = await b.call("auth.ssoLinkConfirm");
    expect(confirmed.data).toMatchObject({ ok: true, step: "done", organization: { id: clinic.orgId } });
    expect((await b.query("auth.me")).data).toMatchObject({ organization: { id: clinic.orgId }, role: "admin" });
    expect((await auditActions(clinic.orgId, userId)).map((e) => e.action)).toContain("staff.sso_linked");
    const notices = await api.services.db
      .select()
      .from(messages)
      .where(and(eq(messages.organizationId, clinic.orgId), eq(messages.purpose, "staff.account_notice")));
    expect(notices.map((m) => m.recipients)).toContainEqual([email]);
    // From now on the provider's sign-in goes straight in: the identity is linked.
    expect(await browser().ssoSignIn(hospitalIdp, clinic.orgId, "ines")).toBe(`${WEB}/`);
  });
});

/** One account, a member of two organizations (staff in the first, viewer in the second). */
async function accountInTwoOrganizations() {
  const first = await api.createOrg(unique("Erste"));
  const second = await api.createOrg(unique("Zweite"));
  const email = `${unique("zwei")}@example.org`;
  const password = "two organizations password";
  const { userId } = await createStaffUser(api.services, {
    organizationId: first.orgId,
    email,
    password,
    role: "staff",
  });
  await second.ctx.scope.insert(memberships, { userId, role: "viewer" });
  return { first, second, email, password, userId };
}

describe("factors belong to the account: changing them asks again, in that call", () => {
  it("a stolen staff session cannot add a passkey, remove the app or renew recovery codes", async () => {
    const org = await api.createOrg(unique("Praxis"));
    const stolen = await signedIn(org.ownerEmail, org.ownerPassword);
    const { recoveryCodes } = await addTotp(stolen, org.ownerPassword);
    const authenticator = new SoftwareAuthenticator(relyingParty(api.services.config).origin);
    const options = await stolen.call("accountSecurity.passkeyOptions");
    const response = authenticator.register(options.data);
    // Without a step-up the input is refused; the password alone is not a second factor's step-up.
    expect((await stolen.call("accountSecurity.passkeyRegister", { name: "Mallory", response })).status).toBe(400);
    const byPassword = { method: "password", password: org.ownerPassword };
    const refused = await stolen.call("accountSecurity.passkeyRegister", {
      name: "Mallory",
      response,
      stepUp: byPassword,
    });
    expect(refused.error.data.details).toMatchObject({ field: "stepUp", reason: "step_up_factor_required" });
    const wrongCode = { method: "totp", code: "000000" === totpCode("A", 1) ? "111111" : "000000" };
    expect((await stolen.call("accountSecurity.totpRemove", { stepUp: wrongCode })).error.data.details).toMatchObject({
      reason: "step_up_failed",
    });
    expect((await stolen.call("accountSecurity.regenerateRecoveryCodes", { stepUp: byPassword })).status).toBe(400);
    const overview = (await stolen.query("accountSecurity.overview")).data;
    expect(overview).toMatchObject({ passkeys: [], totp: { createdAt: expect.any(String) }, recoveryCodesLeft: 10 });
    // The holder, with a recovery code, can.
    const renewed = await stolen.call("accountSecurity.regenerateRecoveryCodes", {
      stepUp: { method: "recovery", code: recoveryCodes[0] },
    });
    expect(renewed.data.recoveryCodes).toHaveLength(10);
    const failures = (await auditActions(org.orgId)).filter((e) => e.action === "staff.step_up_failed");
    expect(failures.length).toBeGreaterThanOrEqual(2);
  });

  it("each change e-mails the account, and is audited in each of its organizations", async () => {
    const { first, second, email, password, userId } = await accountInTwoOrganizations();
    await addTotp(await signedIn(email, password, first.orgId), password);
    for (const org of [first, second])
      expect(await auditActions(org.orgId, userId)).toContainEqual({
        action: "staff.factor_added",
        metadata: { factor: "totp" },
      });
    const [notice] = await api.services.db
      .select()
      .from(messages)
      .where(and(eq(messages.organizationId, first.orgId), eq(messages.purpose, "staff.account_notice")));
    expect(notice).toMatchObject({ recipients: [email], channel: "email" });
    expect(notice!.body).toMatch(/Authenticator/);
  });

  it("ends every staff session of the account in every organization", async () => {
    const { first, second, email, password, userId } = await accountInTwoOrganizations();
    const here = await signedIn(email, password, first.orgId);
    const there = await signedIn(email, password, second.orgId);
    expect((await there.query("auth.me")).data).toMatchObject({ organization: { id: second.orgId } });
    // "Sign out everywhere else" stays in its organization; "end all sessions" does not.
    expect((await here.call("account.endOtherSessions")).data).toEqual({ ended: 0 });
    expect((await there.query("auth.me")).status).toBe(200);
    expect((await here.call("account.endAllSessions")).data).toEqual({ ended: 2 });
    expect(here.jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    expect((await there.query("auth.me")).status).toBe(401);
    for (const org of [first, second])
      expect((await auditActions(org.orgId, userId)).map((e) => e.action)).toContain("staff.all_sessions_ended");
  });
});

describe("owners stay with owners", () => {
  it("an admin cannot change single sign-on, no mapping grants owner, and SSO neither promotes, demotes nor removes an owner", async () => {
    const domain = `${unique("eigner")}.example`;
    const org = await ssoOrg(hospitalIdp, domain);
    const adminEmail = `admin@${domain}`;
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: adminEmail,
      password: "admin password 1",
      role: "admin",
    });
    const admin = await signedIn(adminEmail, "admin password 1");
    const settings = (await admin.query("organization.sso")).data;
    const { configured, hasClientSecret, redirectUri, loginUrl, owners, updatedAt, domains, ...input } = settings;
    void [configured, hasClientSecret, redirectUri, loginUrl, owners, updatedAt, domains];
    const stepUp = { method: "password", password: "admin password 1" };
    expect((await admin.call("organization.saveSso", { ...input, issuer: attackerIdp.issuer, stepUp })).status).toBe(
      403,
    );
    expect((await admin.call("organization.verifySsoDomain", { domain })).status).toBe(403);
    const ownerMapping = [{ value: "cs-owners", role: "owner" }];
    const ownerStepUp = { method: "password", password: org.ownerPassword };
    const refused = await org.owner.call("organization.saveSso", {
      ...input,
      roleMapping: ownerMapping,
      stepUp: ownerStepUp,
    });
    expect(refused.status).toBe(400);

    // A member the provider made, whom an owner promoted to owner in the console.
    hospitalIdp.users.set("otto", { email: `otto@${domain}`, groups: ["cs-staff"] });
    expect(await browser().ssoSignIn(hospitalIdp, org.orgId, "otto")).toBe(`${WEB}/`);
    const members = (await org.owner.query("users.list", { limit: 50 })).data.items as { id: string; email: string }[];
    const otto = members.find((m) => m.email === `otto@${domain}`)!;
    expect((await org.owner.call("users.changeRole", { userId: otto.id, role: "owner" })).status).toBe(200);
    // The provider's staff group does not demote them...
    const asStaff = browser();
    expect(await asStaff.ssoSignIn(hospitalIdp, org.orgId, "otto")).toBe(`${WEB}/`);
    expect((await asStaff.query("auth.me")).data.role).toBe("owner");
    // ...and no group at all refuses the sign-in but keeps the owner.
    hospitalIdp.users.set("otto", { email: `otto@${domain}`, groups: [] });
    expect(await browser().ssoSignIn(hospitalIdp, org.orgId, "otto")).toBe(
      `${WEB}/login/${org.orgId}?sso_error=no_role`,
    );
    expect((await membershipsOf(otto.id)).map((m) => m.role)).toEqual(["owner"]);
  });
});

describe("doors before sign-in", () => {
  it("counts passkey challenges per address: the 61st in 15 minutes is 429", async () => {
    const b = new StaffBrowser(api.baseUrl, "203.0.113.77");
    for (let i = 0; i < 60; i++) expect((await b.call("auth.passkeyOptions", { secondStep: false })).status).toBe(200);
    expect((await b.call("auth.passkeyOptions", { secondStep: false })).status).toBe(429);
  });

  it("refuses an upload with one organization's Bearer token and another's orgId as 401", async () => {
    const mine = await api.createOrg(unique("Meine"));
    const theirs = await api.createOrg(unique("Fremde"));
    const form = new FormData();
    form.set("orgId", theirs.orgId);
    form.set("templateIdentifier", "irgendeine");
    form.set("file", new Blob(["%PDF-1.4"], { type: "application/pdf" }), "a.pdf");
    const response = await fetch(`${api.baseUrl}/api/embed/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${mine.token}` },
      body: form,
    });
    expect(response.status).toBe(401);
  });
});

/**
 * Every way in × each rule of the organization it leads into. The rule is the organization's,
 * whatever the door (admission.ts): SSO-only lets only the organization's provider in (and its
 * break-glass owner); a required second factor asks for one after a password; a deactivated
 * member is refused; a removed member (no membership) is refused.
 */
describe("the sign-in matrix: every door × {SSO-only, second factor required, deactivated, removed}", () => {
  type Rule = "sso_only" | "second_factor_required" | "deactivated" | "removed";
  const rules: Rule[] = ["sso_only", "second_factor_required", "deactivated", "removed"];

  interface Setup {
    org: SsoOrg;
    domain: string;
    email: string;
    password: string;
    userId: string;
  }

  async function memberOf(options: { sso?: boolean } = {}): Promise<Setup> {
    const domain = `${unique("matrix")}.example`;
    const org = await ssoOrg(hospitalIdp, domain);
    const email = `${unique("m")}@${domain}`;
    const password = "matrix member password";
    const { userId } = await createStaffUser(api.services, {
      organizationId: org.orgId,
      email,
      password,
      role: "staff",
    });
    if (options.sso) hospitalIdp.users.set(email, { email, groups: ["cs-staff"] });
    return { org, domain, email, password, userId };
  }

  async function apply(rule: Rule, s: Setup) {
    const ofMember = and(eq(memberships.userId, s.userId), eq(memberships.organizationId, s.org.orgId));
    const settings = (await s.org.owner.query("organization.sso")).data;
    const { configured, hasClientSecret, redirectUri, loginUrl, owners, updatedAt, domains, ...input } = settings;
    void [configured, hasClientSecret, redirectUri, loginUrl, updatedAt, domains];
    if (rule === "sso_only")
      expect(
        (
          await s.org.owner.call("organization.saveSso", {
            ...input,
            ssoOnly: true,
            breakGlassUserId: owners[0].id,
            stepUp: { method: "password", password: s.org.ownerPassword },
          })
        ).status,
      ).toBe(200);
    if (rule === "second_factor_required")
      await api.services.db
        .update(organizations)
        .set({ requireSecondFactor: true })
        .where(eq(organizations.id, s.org.orgId));
    if (rule === "deactivated")
      await api.services.db.update(memberships).set({ deactivatedAt: new Date() }).where(ofMember);
    if (rule === "removed") await api.services.db.delete(memberships).where(ofMember);
  }

  type Outcome = { status: number; step?: string; reason?: string };
  const outcomeOf = (answer: {
    status: number;
    data: { step?: string } | undefined;
    error: { data?: { details?: { reason?: string } } } | undefined;
  }): Outcome => ({
    status: answer.status,
    ...(answer.data?.step && { step: answer.data.step }),
    ...(answer.error?.data?.details?.reason && { reason: answer.error.data.details.reason }),
  });

  const doors: Record<
    string,
    { expected: Record<Rule, Outcome | string>; attempt: (rule: Rule) => Promise<Outcome | string> }
  > = {
    password: {
      expected: {
        sso_only: { status: 403, reason: "sso_only" },
        second_factor_required: { status: 200, step: "enroll" },
        deactivated: { status: 401, reason: "deactivated" },
        removed: { status: 401 },
      },
      async attempt(rule) {
        const s = await memberOf();
        await apply(rule, s);
        return outcomeOf(await browser().call("auth.login", { email: s.email, password: s.password }));
      },
    },
    passkey: {
      expected: {
        sso_only: { status: 403, reason: "sso_only" },
        second_factor_required: { status: 200, step: "done" },
        deactivated: { status: 401, reason: "deactivated" },
        removed: { status: 401 },
      },
      async attempt(rule) {
        const s = await memberOf();
        const authenticator = await addPasskey(await signedIn(s.email, s.password), s.password);
        await apply(rule, s);
        return outcomeOf((await passkeySignIn(authenticator, s.org.orgId)).answer);
      },
    },
    "single sign-on": {
      // The organization's provider vouches for its sign-ins; the console's deactivation and the
      // provider's removal (no mapped group) both refuse.
      expected: {
        sso_only: `${WEB}/`,
        second_factor_required: `${WEB}/`,
        deactivated: "no_role",
        removed: "no_role",
      },
      async attempt(rule) {
        const s = await memberOf({ sso: true });
        // Linked at its first sign-in: a member here alone, without a factor.
        expect(await browser().ssoSignIn(hospitalIdp, s.org.orgId, s.email)).toBe(`${WEB}/`);
        await apply(rule, s);
        if (rule === "removed") hospitalIdp.users.set(s.email, { email: s.email, groups: [] });
        const landed = await browser().ssoSignIn(hospitalIdp, s.org.orgId, s.email);
        return landed.includes("sso_error=") ? new URL(landed).searchParams.get("sso_error")! : landed;
      },
    },
    invitation: {
      // An existing account of another organization, invited here; the rule is this organization's.
      expected: {
        sso_only: { status: 403, reason: "sso_only" },
        second_factor_required: { status: 200, step: "enroll" },
        // Deactivated in its other organization: that does not reach this one.
        deactivated: { status: 200, step: "done" },
        // Removed from this organization before: an invitation brings it back.
        removed: { status: 200, step: "done" },
      },
      async attempt(rule) {
        const s = await memberOf();
        const elsewhere = await api.createOrg(unique("Anderswo"));
        await elsewhere.ctx.scope.insert(memberships, { userId: s.userId, role: "staff" });
        await api.services.db
          .delete(memberships)
          .where(and(eq(memberships.userId, s.userId), eq(memberships.organizationId, s.org.orgId)));
        if (rule === "sso_only" || rule === "second_factor_required") await apply(rule, s);
        if (rule === "deactivated")
          await api.services.db
            .update(memberships)
            .set({ deactivatedAt: new Date() })
            .where(and(eq(memberships.userId, s.userId), eq(memberships.organizationId, elsewhere.orgId)));
        await s.org.owner.call("users.invite", { email: s.email, role: "staff" });
        const mail = (await s.org.owner.query("messages.list", { channel: "email", limit: 5 })).data.find(
          (m: { recipients: string[] }) => m.recipients.includes(s.email),
        );
        const revealed = await s.org.owner.call("messages.reveal", { id: mail.id });
        const token = /\/invite#([A-Za-z0-9_-]+)/.exec(revealed.data.body)![1]!;
        return outcomeOf(
          await browser().call("invitations.accept", { token, name: "Eingeladen", password: s.password }),
        );
      },
    },
    "second step (recovery code)": {
      // The rule is applied between the password and the second step: admission asks again.
      expected: {
        sso_only: { status: 403, reason: "sso_only" },
        second_factor_required: { status: 200, step: "done" },
        deactivated: { status: 401, reason: "deactivated" },
        removed: { status: 401 },
      },
      async attempt(rule) {
        const s = await memberOf();
        const { recoveryCodes } = await addTotp(await signedIn(s.email, s.password), s.password);
        const b = browser();
        expect((await b.call("auth.login", { email: s.email, password: s.password })).data).toMatchObject({
          step: "second_factor",
        });
        await apply(rule, s);
        return outcomeOf(await b.call("auth.verifyCode", { method: "recovery", code: recoveryCodes[0] }));
      },
    },
  };

  for (const [door, { expected, attempt }] of Object.entries(doors))
    for (const rule of rules)
      it(`${door} × ${rule}`, async () => {
        expect(await attempt(rule)).toEqual(expected[rule]);
      });
});
