import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditLog,
  eq,
  memberships,
  organizationSso,
  ssoDomains,
  staffPendingSignIns,
  staffSessions,
} from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../../testing/harness";
import { recordAudit } from "../../audit/audit";
import { inTransaction } from "../../context";
import { sha256Hex } from "../../crypto";
import { accountByEmail, createStaffUser, membershipsOf, scopesOfAccount } from "./accounts";
import {
  claimTotpStep,
  consumeWebauthnChallenge,
  replaceRecoveryCodeHashes,
  spendRecoveryCode,
  storeTotpSecret,
  storeWebauthnChallenge,
} from "./factors";
import { IdentityStore } from "./identity-store";
import { openInviteByToken } from "./invites";
import {
  accountOfIdentity,
  domainProvenElsewhere,
  linkIdentity,
  organizationOfProvenDomain,
  takeSsoSignInAttempt,
} from "./sso";
import { endStaffSession, readPendingSignIn, resolveStaffSession, spendPendingSignIn } from "./staff-sessions";

let api: TestApi;
let first: TestOrg;
let second: TestOrg;
let userId: string;

beforeAll(async () => {
  api = await startTestApi();
  first = await api.createOrg();
  second = await api.createOrg();
  ({ userId } = await createStaffUser(api.services, {
    organizationId: first.orgId,
    email: "Two.Orgs@Example.org",
    password: "a long password",
    role: "staff",
  }));
  await second.ctx.scope.insert(memberships, { userId, role: "viewer" });
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const store = () => IdentityStore.of(api.services);

describe("staff accounts", () => {
  it("finds an account by its lower-cased e-mail with its memberships in every organization", async () => {
    const account = await accountByEmail(store(), "two.orgs@example.org");
    expect(account?.id).toBe(userId);
    const joined = await membershipsOf(store(), userId);
    expect(joined.map((m) => m.organizationId).sort()).toEqual([first.orgId, second.orgId].sort());
    await second.ctx.scope.update(memberships, { deactivatedAt: new Date() }, eq(memberships.userId, userId));
    expect((await membershipsOf(store(), userId, "active")).map((m) => m.organizationId)).toEqual([first.orgId]);
  });

  it("gives one scope per organization of the account, inside the caller's transaction", async () => {
    await expect(
      inTransaction(first.ctx, async (tx) => {
        const scopes = await scopesOfAccount(IdentityStore.joining(tx.scope), userId);
        expect(scopes.map((s) => s.organizationId).sort()).toEqual([first.orgId, second.orgId].sort());
        for (const scope of scopes)
          await recordAudit({ ...tx, scope }, { action: "staff.factor_added", metadata: { probe: true } });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    // Rolled back with the transaction: the scopes wrote on its handle, not the process's.
    const entries = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "staff.factor_added"));
    expect(entries).toEqual([]);
  });
});

describe("staff sessions and pending sign-ins", () => {
  it("resolves a staff session cookie by its hash, and ends it", async () => {
    await first.ctx.scope.insert(staffSessions, {
      tokenHash: sha256Hex("cookie-value-1"),
      userId,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const principal = await resolveStaffSession(store(), "cookie-value-1");
    expect(principal).toMatchObject({ userId, organizationId: first.orgId, role: "staff" });
    expect(await resolveStaffSession(store(), "another-value")).toBeNull();
    await endStaffSession(store(), "cookie-value-1");
    expect(await resolveStaffSession(store(), "cookie-value-1")).toBeNull();
  });

  it("reads a pending sign-in only at its step, and spends it once", async () => {
    await first.ctx.scope.insert(staffPendingSignIns, {
      tokenHash: sha256Hex("pending-1"),
      userId,
      step: "second_factor",
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expect(readPendingSignIn(store(), "pending-1", "enroll")).rejects.toMatchObject({
      code: "unauthorized",
    });
    const pending = await readPendingSignIn(store(), "pending-1", "second_factor");
    expect(pending).toMatchObject({ userId, organizationId: first.orgId });
    await spendPendingSignIn(store(), pending);
    await expect(spendPendingSignIn(store(), pending)).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("second factors", () => {
  it("accepts a TOTP step only when newer than the last, and a recovery code once", async () => {
    await storeTotpSecret(store(), userId, "sealed");
    expect(await claimTotpStep(store(), userId, 100)).toBe(true);
    expect(await claimTotpStep(store(), userId, 100)).toBe(false);
    expect(await claimTotpStep(store(), userId, 99)).toBe(false);
    expect(await claimTotpStep(store(), userId, 101)).toBe(true);
    await replaceRecoveryCodeHashes(store(), userId, ["h1", "h2"]);
    expect(await spendRecoveryCode(store(), userId, "h1")).toBe(true);
    expect(await spendRecoveryCode(store(), userId, "h1")).toBe(false);
    expect(await spendRecoveryCode(store(), userId, "nope")).toBe(false);
  });

  it("takes a WebAuthn challenge once, for its purpose and account only", async () => {
    const later = new Date(Date.now() + 60_000);
    await storeWebauthnChallenge(store(), "c1", "register", userId, later);
    expect(await consumeWebauthnChallenge(store(), "c1", "authenticate", userId)).toBe(false);
    expect(await consumeWebauthnChallenge(store(), "c1", "register", null)).toBe(false);
    expect(await consumeWebauthnChallenge(store(), "c1", "register", userId)).toBe(true);
    expect(await consumeWebauthnChallenge(store(), "c1", "register", userId)).toBe(false);
  });
});

describe("invite links and single sign-on routing", () => {
  it("finds no invitation for an unknown link", async () => {
    expect(await openInviteByToken(store(), "not-a-link-secret-at-all")).toBeUndefined();
  });

  it("routes a domain only to the organization that proved it; a claim nobody proved routes nowhere", async () => {
    await first.ctx.scope.insert(organizationSso, {
      displayName: "IdP",
      issuer: "https://idp.example",
      clientId: "c",
      clientSecretEnc: "s",
      roleClaim: "groups",
    });
    await first.ctx.scope.insert(ssoDomains, [{ domain: "praxis.example", verificationToken: "t1" }]);
    await second.ctx.scope.insert(ssoDomains, [{ domain: "praxis.example", verificationToken: "t2" }]);
    expect(await organizationOfProvenDomain(store(), "praxis.example")).toBeUndefined();
    await first.ctx.scope.update(ssoDomains, { verifiedAt: new Date() }, eq(ssoDomains.domain, "praxis.example"));
    expect(await organizationOfProvenDomain(store(), "praxis.example")).toBe(first.orgId);
    expect(await domainProvenElsewhere(store(), second.orgId, "praxis.example")).toBe(true);
    expect(await domainProvenElsewhere(store(), first.orgId, "praxis.example")).toBe(false);
    // A second proof of the same domain is refused by the database itself.
    await expect(
      second.ctx.scope.update(ssoDomains, { verifiedAt: new Date() }, eq(ssoDomains.domain, "praxis.example")),
    ).rejects.toThrow();
    expect(await takeSsoSignInAttempt(store(), undefined)).toBeUndefined();
    expect(await takeSsoSignInAttempt(store(), "unknown-state")).toBeUndefined();
  });

  it("keys a provider's identity by organization, issuer and subject: the same subject elsewhere is nobody", async () => {
    const who = { organizationId: first.orgId, issuer: "https://idp.example", subject: "s-1" };
    expect(await accountOfIdentity(store(), who)).toBeUndefined();
    await linkIdentity(store(), { ...who, userId, email: "two.orgs@example.org" });
    expect(await accountOfIdentity(store(), who)).toBe(userId);
    expect(await accountOfIdentity(store(), { ...who, organizationId: second.orgId })).toBeUndefined();
    expect(await accountOfIdentity(store(), { ...who, issuer: "https://other.example" })).toBeUndefined();
  });
});
