import type { Me } from "@clinsign/contracts";
import type { StaffPrincipal } from "../context";
import { decoyPasswordHash, sha256Hex, verifyPassword } from "../crypto";
import { unauthorized } from "../errors";
import { admitToOrganization, auditSignIn, chooseOrganization, deactivatedError, type Admission } from "./admission";
import type { PublicContext } from "./public-context";
import { accountByEmail, membershipsOf } from "./store/accounts";
import { clearSignInAttempts, countSignInAttempt, refundSignInAttempt } from "./store/limits";
import { endStaffSession } from "./store/staff-sessions";
import { addressKey } from "../rate-limit";

/** The password: its check (`checkPassword`, shared by sign-in, invitations and provider links) and the sign-in door. */

const PASSWORD_STEP = { method: "password", strength: "one_factor" } as const;

/**
 * Checks an account's password, counted per address and per IP (a successful check is taken back
 * from the shared IP counter: a clinic's staff often share one address). A missing account, or
 * one without a password (its provider made it), costs the same time as a wrong password and
 * gets the same 401. Wrong passwords are audited in the account's organizations; an unknown
 * address has none, so it is only counted and noted in the process log (without the address).
 */
export async function checkPassword(
  pub: PublicContext,
  input: { email: string; password: string },
  counter = "login",
): Promise<{ id: string; email: string }> {
  const emailKey = `${counter}:email:${sha256Hex(input.email)}`;
  await countSignInAttempt(pub.identity, { key: emailKey, limit: 10, windowSeconds: 15 * 60 });
  const ipKey = `${counter}:ip:${addressKey(pub.request.ip)}`;
  await countSignInAttempt(pub.identity, { key: ipKey, limit: 50, windowSeconds: 15 * 60 });
  const account = await accountByEmail(pub.identity, input.email);
  const passwordOk = await verifyPassword(input.password, account?.passwordHash ?? (await decoyPasswordHash));
  if (!account || !account.passwordHash || !passwordOk) {
    pub.services.log.warn(
      { event: "staff.sign_in_failed", requestId: pub.request.requestId, ip: pub.request.ip },
      "staff sign-in failed",
    );
    if (account)
      for (const m of await membershipsOf(pub.identity, account.id))
        await auditSignIn(pub, { userId: account.id, organizationId: m.organizationId }, "staff.sign_in_failed");
    throw unauthorized(counter === "login" ? "wrong e-mail or password" : "wrong password for this account");
  }
  await clearSignInAttempts(pub.identity, emailKey);
  await refundSignInAttempt(pub.identity, ipKey);
  return account;
}

/**
 * Signing in with e-mail and password, into the organization the login URL names or else the
 * account's first one that admits a password; admission decides whether the staff session opens
 * now or after a second step.
 */
export async function logIn(
  pub: PublicContext,
  input: { email: string; password: string; organizationId?: string },
): Promise<Admission> {
  const account = await checkPassword(pub, input);
  const organizationId = input.organizationId ?? (await chooseOrganization(pub, account.id, PASSWORD_STEP));
  if (!organizationId)
    throw (await membershipsOf(pub.identity, account.id)).length
      ? deactivatedError()
      : unauthorized("this account belongs to no organization");
  return admitToOrganization(pub, { userId: account.id, organizationId }, PASSWORD_STEP);
}

/** Signing out: the staff session the cookie names ends. */
export async function logOut(pub: PublicContext, token: string | undefined): Promise<void> {
  await endStaffSession(pub.identity, token);
}

/** `auth.me` without the seal level; `timeZone` is the organization's (its settings). */
export function describeStaff(
  principal: StaffPrincipal,
  devCertificate: boolean,
  timeZone: string,
): Omit<Me, "sealLevel"> {
  return {
    user: { id: principal.userId, email: principal.email, name: principal.name },
    organization: { id: principal.organizationId, name: principal.organizationName, timeZone },
    role: principal.role,
    devCertificate,
  };
}
