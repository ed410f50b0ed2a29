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
import { accountByEmail, createStaffUser, handleOf, membershipsOf, scopesOfAccount } from "./accounts";
import {
  claimTotpStep,
  consumeWebauthnChallenge,
  replaceRecoveryCodeHashes,
  spendRecoveryCode,
  storeTotpSecret,
  storeWebauthnChallenge,
} from "./factors";
import { openInviteByToken } from "./invites";
import { endStaffSession, readPendingSignIn, resolveStaffSession, spendPendingSignIn } from "./staff-sessions";
import { organizationOfSsoDomain, ssoDomainClaimedElsewhere, takeSsoSignInAttempt } from "./sso";

let api: TestApi;
let first: TestOrg;
let second: TestOrg;
let userId: string;

beforeAll(async () => {
  api = await startTestApi();
  first = await api.createOrg();
  second = await api.createOrg();
  ({ userId } = await createStaffUser(api.services.db, {
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

describe("staff accounts", () => {
  it("finds an account by its lower-cased e-mail with its memberships in every organization", async () => {
    const account = await accountByEmail(api.services, "two.orgs@example.org");
    expect(account?.id).toBe(userId);
    const joined = await membershipsOf(api.services, userId);
    expect(joined.map((m) => m.organizationId).sort()).toEqual([first.orgId, second.orgId].sort());
    await second.ctx.scope.update(memberships, { deactivatedAt: new Date() }, eq(memberships.userId, userId));
    expect((await membershipsOf(api.services, userId, "active")).map((m) => m.organizationId)).toEqual([first.orgId]);
  });

  it("gives one scope per organization of the account, inside the caller's transaction", async () => {
    await expect(
      inTransaction(first.ctx, async (tx) => {
        expect(handleOf(tx.scope)).not.toBe(api.services.db);
        const scopes = await scopesOfAccount(tx.scope, userId);
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
    const principal = await resolveStaffSession(api.services.db, "cookie-value-1");
    expect(principal).toMatchObject({ userId, organizationId: first.orgId, role: "staff" });
    expect(await resolveStaffSession(api.services.db, "another-value")).toBeNull();
    await endStaffSession(api.services, "cookie-value-1");
    expect(await resolveStaffSession(api.services.db, "cookie-value-1")).toBeNull();
  });

  it("reads a pending sign-in only at its step, and spends it once", async () => {
    await first.ctx.scope.insert(staffPendingSignIns, {
      tokenHash: sha256Hex("pending-1"),
      userId,
      step: "second_factor",
      expiresAt: new Date(Date.now() + 60_000),
    });
    await expect(readPendingSignIn(api.services, "pending-1", "enroll")).rejects.toMatchObject({
      code: "unauthorized",
    });
    const pending = await readPendingSignIn(api.services, "pending-1", "second_factor");
    expect(pending).toMatchObject({ userId, organizationId: first.orgId });
    await spendPendingSignIn(api.services, pending);
    await expect(spendPendingSignIn(api.services, pending)).rejects.toMatchObject({ code: "unauthorized" });
  });
});

describe("second factors", () => {
  it("accepts a TOTP step only when newer than the last, and a recovery code once", async () => {
    await storeTotpSecret(api.services, userId, "sealed");
    expect(await claimTotpStep(api.services, userId, 100)).toBe(true);
    expect(await claimTotpStep(api.services, userId, 100)).toBe(false);
    expect(await claimTotpStep(api.services, userId, 99)).toBe(false);
    expect(await claimTotpStep(api.services, userId, 101)).toBe(true);
    await replaceRecoveryCodeHashes(api.services, userId, ["h1", "h2"]);
    expect(await spendRecoveryCode(api.services, userId, "h1")).toBe(true);
    expect(await spendRecoveryCode(api.services, userId, "h1")).toBe(false);
    expect(await spendRecoveryCode(api.services, userId, "nope")).toBe(false);
  });

  it("takes a WebAuthn challenge once, for its purpose and account only", async () => {
    const later = new Date(Date.now() + 60_000);
    await storeWebauthnChallenge(api.services, "c1", "register", userId, later);
    expect(await consumeWebauthnChallenge(api.services, "c1", "authenticate", userId)).toBe(false);
    expect(await consumeWebauthnChallenge(api.services, "c1", "register", null)).toBe(false);
    expect(await consumeWebauthnChallenge(api.services, "c1", "register", userId)).toBe(true);
    expect(await consumeWebauthnChallenge(api.services, "c1", "register", userId)).toBe(false);
  });
});

describe("invite links and single sign-on routing", () => {
  it("finds no invitation for an unknown link", async () => {
    expect(await openInviteByToken(api.services, "not-a-link-secret-at-all")).toBeUndefined();
  });

  it("routes a domain to the organization that named it, and sees another organization's claim", async () => {
    await first.ctx.scope.insert(organizationSso, {
      displayName: "IdP",
      issuer: "https://idp.example",
      clientId: "c",
      clientSecretEnc: "s",
      roleClaim: "groups",
    });
    await first.ctx.scope.insert(ssoDomains, [{ domain: "praxis.example" }]);
    expect(await organizationOfSsoDomain(api.services, "praxis.example")).toBe(first.orgId);
    expect(await organizationOfSsoDomain(api.services, "other.example")).toBeUndefined();
    expect(await ssoDomainClaimedElsewhere(second.ctx.scope, second.orgId, ["x.example", "praxis.example"])).toBe(
      "praxis.example",
    );
    expect(await ssoDomainClaimedElsewhere(first.ctx.scope, first.orgId, ["praxis.example"])).toBeUndefined();
    expect(await ssoDomainClaimedElsewhere(first.ctx.scope, first.orgId, [])).toBeUndefined();
    expect(await takeSsoSignInAttempt(api.services, undefined)).toBeUndefined();
    expect(await takeSsoSignInAttempt(api.services, "unknown-state")).toBeUndefined();
  });
});
