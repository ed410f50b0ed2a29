import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, staffPendingSignIns, staffRecoveryCodes, staffTotp } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { SoftwareAuthenticator } from "../../testing/webauthn";
import { relyingParty } from "./passkeys";
import { totpCode, totpStep } from "./totp";
import { PENDING_SIGN_IN_COOKIE, STAFF_SESSION_COOKIE } from "./cookies";
import { createStaffUser } from "./store/accounts";

let api: TestApi;
let org: TestOrg;
beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Praxis Zwei Faktoren");
});
afterAll(() => api?.close());

type Jar = Record<string, string>;
interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  data: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  error: any;
  setCookies: string[];
}

/** One tRPC mutation through HTTP, carrying and updating a cookie jar like a browser. */
async function call(path: string, jar: Jar, input?: unknown, ip = "198.51.100.20"): Promise<Answer> {
  const cookie = Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  const res = await fetch(`${api.baseUrl}/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip, ...(cookie && { cookie }) },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  const setCookies = res.headers.getSetCookie();
  for (const set of setCookies) {
    const [pair] = set.split(";");
    const [name, value] = pair!.split("=") as [string, string];
    if (value === "" || set.includes("Max-Age=0")) delete jar[name];
    else jar[name] = value;
  }
  const body = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  return { status: res.status, data: body.result?.data, error: body.error, setCookies };
}
const query = async (path: string, jar: Jar) => {
  const cookie = Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  const res = await fetch(`${api.baseUrl}/trpc/${path}`, { headers: { cookie } });
  return { status: res.status, data: ((await res.json()) as { result?: { data: unknown } }).result?.data as never };
};

let userCount = 0;
async function newMember(organizationId = org.orgId) {
  const email = `member-${++userCount}-${Date.now()}@mfa.test`;
  const password = "member password 1";
  const { userId } = await createStaffUser(api.services, { organizationId, email, password, role: "staff" });
  return { email, password, userId };
}

async function signInWithPassword(member: { email: string; password: string }, ip?: string) {
  const jar: Jar = {};
  const answer = await call("auth.login", jar, { email: member.email, password: member.password }, ip);
  return { jar, answer };
}

/** Signs in (no factor yet) and sets up the authenticator app; returns its secret and the recovery codes. */
async function withTotp(member: { email: string; password: string }) {
  const { jar } = await signInWithPassword(member);
  expect(jar[STAFF_SESSION_COOKIE]).toBeDefined();
  const setup = await call("accountSecurity.totpStart", jar);
  const step = totpStep();
  const confirmed = await call("accountSecurity.totpConfirm", jar, {
    code: totpCode(setup.data.secret, step),
    stepUp: byPassword(member),
  });
  expect(confirmed.status).toBe(200);
  return { secret: setup.data.secret as string, recoveryCodes: confirmed.data.recoveryCodes as string[], jar, step };
}

/** The step-up of an account without a second factor: its password. */
const byPassword = (member: { password: string }) => ({ method: "password", password: member.password });

const auditActions = async (userId: string) =>
  (
    await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, userId), eq(auditLog.organizationId, org.orgId)))
  ).map((e) => ({
    action: e.action,
    metadata: e.metadata,
  }));

describe("authenticator app (TOTP)", () => {
  it("is set up from a QR code's URI and confirmed by a first code; the secret is stored encrypted, ten recovery codes hashed", async () => {
    const member = await newMember();
    const { jar } = await signInWithPassword(member);
    const setup = await call("accountSecurity.totpStart", jar);
    expect(setup.data.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.data.uri).toBe(
      `otpauth://totp/ClinSign%3A${encodeURIComponent(member.email)}?secret=${setup.data.secret}&issuer=ClinSign&algorithm=SHA1&digits=6&period=30`,
    );
    const wrong = await call("accountSecurity.totpConfirm", jar, {
      code: totpCode(setup.data.secret, totpStep() + 5),
      stepUp: byPassword(member),
    });
    expect(wrong.status).toBe(400);
    expect((await query("accountSecurity.overview", jar)).data).toMatchObject({ totp: null });

    const confirmed = await call("accountSecurity.totpConfirm", jar, {
      code: totpCode(setup.data.secret, totpStep()),
      stepUp: byPassword(member),
    });
    expect(confirmed.status).toBe(200);
    const codes = confirmed.data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const [stored] = await api.services.db.select().from(staffTotp).where(eq(staffTotp.userId, member.userId));
    expect(stored!.secretEnc).toMatch(/^v2\./);
    expect(stored!.secretEnc).not.toContain(setup.data.secret);
    expect(api.services.secrets.open(stored!.secretEnc)).toBe(setup.data.secret);
    const hashes = JSON.stringify(
      await api.services.db.select().from(staffRecoveryCodes).where(eq(staffRecoveryCodes.userId, member.userId)),
    );
    for (const code of codes) expect(hashes).not.toContain(code.replace("-", ""));

    expect((await query("accountSecurity.overview", jar)).data).toMatchObject({
      totp: { createdAt: expect.any(String) },
      recoveryCodesLeft: 10,
    });
    expect(await auditActions(member.userId)).toContainEqual({
      action: "staff.factor_added",
      metadata: { factor: "totp" },
    });
  });

  it("makes sign-in two steps: the password yields only a pending sign-in cookie, the right code opens the session", async () => {
    const member = await newMember();
    const { secret } = await withTotp(member);
    const { jar, answer } = await signInWithPassword(member);
    expect(answer.data).toEqual({
      ok: true,
      step: "second_factor",
      methods: { totp: true, passkey: false, recoveryCode: true },
    });
    expect(jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    const pendingCookie = answer.setCookies.find((c) => c.startsWith(`${PENDING_SIGN_IN_COOKIE}=`))!;
    expect(pendingCookie).toContain("HttpOnly");
    expect(pendingCookie).toContain("SameSite=Lax");
    expect(pendingCookie).toContain("Max-Age=300");
    // The pending sign-in is not a session, and is stored only as a hash.
    expect((await query("auth.me", { [STAFF_SESSION_COOKIE]: jar[PENDING_SIGN_IN_COOKIE]! })).status).toBe(401);
    expect((await query("auth.me", jar)).status).toBe(401);
    const rows = await api.services.db
      .select()
      .from(staffPendingSignIns)
      .where(eq(staffPendingSignIns.userId, member.userId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(jar[PENDING_SIGN_IN_COOKIE]);

    const done = await call("auth.verifyCode", jar, { method: "totp", code: totpCode(secret, totpStep() + 1) });
    expect(done.data).toMatchObject({ ok: true, step: "done" });
    expect(jar[PENDING_SIGN_IN_COOKIE]).toBeUndefined();
    expect((await query("auth.me", jar)).data).toMatchObject({ user: { email: member.email } });
    expect(
      await api.services.db.select().from(staffPendingSignIns).where(eq(staffPendingSignIns.userId, member.userId)),
    ).toHaveLength(0);
  });

  it("refuses a code of a time step already used, and accepts the next step's", async () => {
    const member = await newMember();
    const { secret, step } = await withTotp(member); // the set-up used this step
    const { jar } = await signInWithPassword(member);
    const reused = await call("auth.verifyCode", jar, { method: "totp", code: totpCode(secret, step) });
    expect(reused.status).toBe(401);
    expect(reused.error.message).toBe("this code is not valid");
    expect(jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    const next = await call("auth.verifyCode", jar, { method: "totp", code: totpCode(secret, step + 1) });
    expect(next.data).toMatchObject({ ok: true, step: "done" });
    expect(await auditActions(member.userId)).toContainEqual({
      action: "staff.second_factor_failed",
      metadata: { method: "totp" },
    });
  });

  it("accepts one step either side of now and refuses codes two steps away", async () => {
    const member = await newMember();
    const { jar: signedIn } = await signInWithPassword(member);
    const setup = await call("accountSecurity.totpStart", signedIn);
    // Confirm with the previous step, so the steps after it are still unused.
    expect(
      (
        await call("accountSecurity.totpConfirm", signedIn, {
          code: totpCode(setup.data.secret, totpStep() - 1),
          stepUp: byPassword(member),
        })
      ).status,
    ).toBe(200);
    const { jar } = await signInWithPassword(member);
    expect(
      (await call("auth.verifyCode", jar, { method: "totp", code: totpCode(setup.data.secret, totpStep() + 2) }))
        .status,
    ).toBe(401);
    expect(
      (await call("auth.verifyCode", jar, { method: "totp", code: totpCode(setup.data.secret, totpStep() - 3) }))
        .status,
    ).toBe(401);
    expect((await call("auth.verifyCode", jar, { method: "totp", code: "12345" })).status).toBe(401);
    expect(
      (await call("auth.verifyCode", jar, { method: "totp", code: totpCode(setup.data.secret, totpStep() + 1) })).data,
    ).toMatchObject({ ok: true, step: "done" });
  });

  it("takes each recovery code once, and audits their use", async () => {
    const member = await newMember();
    const { recoveryCodes } = await withTotp(member);
    const first = await signInWithPassword(member);
    expect(
      (await call("auth.verifyCode", first.jar, { method: "recovery", code: recoveryCodes[0]!.toUpperCase() })).data,
    ).toMatchObject({ ok: true, step: "done" });
    const again = await signInWithPassword(member);
    expect((await call("auth.verifyCode", again.jar, { method: "recovery", code: recoveryCodes[0]! })).status).toBe(
      401,
    );
    expect(
      (await call("auth.verifyCode", again.jar, { method: "recovery", code: recoveryCodes[1]!.replace("-", " ") }))
        .data,
    ).toMatchObject({ ok: true, step: "done" });
    expect((await query("accountSecurity.overview", again.jar)).data).toMatchObject({ recoveryCodesLeft: 8 });
    const actions = await auditActions(member.userId);
    expect(actions).toContainEqual({ action: "staff.recovery_code_used", metadata: { remaining: 9 } });
    expect(actions).toContainEqual({ action: "staff.recovery_code_used", metadata: { remaining: 8 } });
    expect(actions).toContainEqual({ action: "staff.second_factor_failed", metadata: { method: "recovery" } });

    // New codes replace the old ones.
    // A step-up with one of the codes left (a second factor is asked, not the password).
    expect(
      (await call("accountSecurity.regenerateRecoveryCodes", again.jar, { stepUp: byPassword(member) })).error.data
        .details,
    ).toMatchObject({ field: "stepUp", reason: "step_up_factor_required" });
    const regenerated = await call("accountSecurity.regenerateRecoveryCodes", again.jar, {
      stepUp: { method: "recovery", code: recoveryCodes[3]! },
    });
    expect(regenerated.data.recoveryCodes).toHaveLength(10);
    const third = await signInWithPassword(member);
    expect((await call("auth.verifyCode", third.jar, { method: "recovery", code: recoveryCodes[2]! })).status).toBe(
      401,
    );
    expect(
      (await call("auth.verifyCode", third.jar, { method: "recovery", code: regenerated.data.recoveryCodes[0] }))
        .status,
    ).toBe(200);
    expect(await auditActions(member.userId)).toContainEqual({
      action: "staff.recovery_codes_regenerated",
      metadata: {},
    });
  });

  it("limits failed second steps per account: the 11th attempt is 429 even with the right code", async () => {
    const member = await newMember();
    const { secret } = await withTotp(member);
    const { jar } = await signInWithPassword(member);
    for (let i = 0; i < 10; i++) {
      const wrong = await call(
        "auth.verifyCode",
        jar,
        { method: "totp", code: String(100000 + i) },
        `203.0.113.${i + 1}`,
      );
      expect(wrong.status).toBe(401);
    }
    const blocked = await call(
      "auth.verifyCode",
      jar,
      { method: "totp", code: totpCode(secret, totpStep() + 1) },
      "203.0.113.99",
    );
    expect(blocked.status).toBe(429);
    expect(blocked.error.data.details.retryAfterSeconds).toBeGreaterThan(0);
    expect(jar[STAFF_SESSION_COOKIE]).toBeUndefined();
  });

  it("refuses a forged or expired pending sign-in like an ended one", async () => {
    const member = await newMember();
    const { secret } = await withTotp(member);
    const forged = await call(
      "auth.verifyCode",
      { [PENDING_SIGN_IN_COOKIE]: "A".repeat(43) },
      { method: "totp", code: totpCode(secret, totpStep() + 1) },
    );
    expect(forged.status).toBe(401);
    expect(forged.error.data.details.reason).toBe("sign_in_expired");
    const missing = await call("auth.verifyCode", {}, { method: "totp", code: totpCode(secret, totpStep() + 1) });
    expect(missing.status).toBe(401);

    const { jar } = await signInWithPassword(member);
    await api.services.db
      .update(staffPendingSignIns)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffPendingSignIns.userId, member.userId));
    const expired = await call("auth.verifyCode", jar, { method: "totp", code: totpCode(secret, totpStep() + 1) });
    expect(expired.status).toBe(401);
    expect(expired.error.data.details.reason).toBe("sign_in_expired");
    expect(jar[STAFF_SESSION_COOKIE]).toBeUndefined();
  });
});

describe("required second factor", () => {
  it("leads a member without a factor to set one up after the password, before any session", async () => {
    const clinic = await api.createOrg("Pflichtpraxis");
    const owner = await signInWithPassword({ email: clinic.ownerEmail, password: clinic.ownerPassword });
    expect((await call("organization.update", owner.jar, { requireSecondFactor: true })).data).toMatchObject({
      requireSecondFactor: true,
    });

    const member = await newMember(clinic.orgId);
    const { jar, answer } = await signInWithPassword(member);
    expect(answer.data).toEqual({ ok: true, step: "enroll" });
    expect(jar[STAFF_SESSION_COOKIE]).toBeUndefined();
    expect(answer.setCookies.find((c) => c.startsWith(PENDING_SIGN_IN_COOKIE))).toContain("Max-Age=900");
    // An enrolment is not a second step, and opens no console procedure.
    expect((await call("auth.verifyCode", jar, { method: "recovery", code: "aaaaa-aaaaa" })).status).toBe(401);
    expect((await query("accountSecurity.overview", jar)).status).toBe(401);

    const setup = await call("auth.enrollTotpStart", jar);
    expect(
      (
        await call("auth.enrollTotpConfirm", jar, {
          code: "000000" === totpCode(setup.data.secret, totpStep()) ? "111111" : "000000",
        })
      ).status,
    ).toBe(400);
    const done = await call("auth.enrollTotpConfirm", jar, { code: totpCode(setup.data.secret, totpStep()) });
    expect(done.data).toMatchObject({ ok: true, step: "done", recoveryCodes: expect.any(Array) });
    expect((await query("auth.me", jar)).data).toMatchObject({ user: { email: member.email } });
    expect((await query("accountSecurity.overview", jar)).data).toMatchObject({
      required: true,
      totp: { createdAt: expect.any(String) },
    });
    // The last factor stays while the organization requires one.
    const stepUp = { method: "recovery", code: done.data.recoveryCodes[0] };
    expect((await call("accountSecurity.totpRemove", jar, { stepUp })).status).toBe(409);
    // Next time: the usual second step.
    expect((await signInWithPassword(member)).answer.data).toMatchObject({ step: "second_factor" });
  });
});

describe("passkeys", () => {
  const origin = () => relyingParty(api.services.config).origin;

  async function registered(member: { email: string; password: string }) {
    const { jar } = await signInWithPassword(member);
    const authenticator = new SoftwareAuthenticator(origin());
    const options = await call("accountSecurity.passkeyOptions", jar);
    expect(options.data.rp.id).toBe(new URL(api.services.config.publicWebUrl).hostname);
    expect(options.data.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    const added = await call("accountSecurity.passkeyRegister", jar, {
      name: "Praxis-Laptop",
      response: authenticator.register(options.data),
      stepUp: byPassword(member),
    });
    expect(added.status).toBe(200);
    return { authenticator, jar, recoveryCodes: added.data.recoveryCodes as string[] | null };
  }

  /** The step-up of an account with a passkey: an assertion of it for a step-up challenge. */
  async function passkeyStepUp(jar: Jar, authenticator: SoftwareAuthenticator) {
    const options = await call("accountSecurity.stepUpOptions", jar);
    return { method: "passkey", response: authenticator.assert(options.data) };
  }

  it("registers a named passkey (challenge used once, origin checked), lists it, and asks for it after the password", async () => {
    const member = await newMember();
    const { authenticator, jar, recoveryCodes } = await registered(member);
    expect(recoveryCodes).toHaveLength(10);
    const overview = (await query("accountSecurity.overview", jar)).data as {
      passkeys: { id: string; name: string }[];
    };
    expect(overview.passkeys).toEqual([expect.objectContaining({ name: "Praxis-Laptop", lastUsedAt: null })]);

    // A registration for another origin, or a second answer to a used challenge, is refused.
    const other = new SoftwareAuthenticator(origin());
    const options = await call("accountSecurity.passkeyOptions", jar);
    expect(
      (
        await call("accountSecurity.passkeyRegister", jar, {
          name: "Fremd",
          response: other.register(options.data, { origin: "https://evil.example" }),
          stepUp: await passkeyStepUp(jar, authenticator),
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call("accountSecurity.passkeyRegister", jar, {
          name: "Fremd",
          response: other.register(options.data),
          stepUp: await passkeyStepUp(jar, authenticator),
        })
      ).status,
    ).toBe(400);

    const { jar: signIn, answer } = await signInWithPassword(member);
    expect(answer.data).toMatchObject({
      step: "second_factor",
      methods: { totp: false, passkey: true, recoveryCode: true },
    });
    const request = await call("auth.passkeyOptions", signIn, { secondStep: true });
    expect(request.data.allowCredentials).toEqual([expect.objectContaining({ id: authenticator.id })]);
    const assertion = authenticator.assert(request.data);
    expect((await call("auth.verifyPasskey", signIn, { response: assertion })).data).toMatchObject({
      ok: true,
      step: "done",
    });
    expect((await query("auth.me", signIn)).data).toMatchObject({ user: { email: member.email } });

    // The same assertion again (its challenge is used) opens nothing.
    const replay = await signInWithPassword(member);
    expect((await call("auth.verifyPasskey", replay.jar, { response: assertion })).status).toBe(401);
    expect(await auditActions(member.userId)).toContainEqual({
      action: "staff.second_factor_failed",
      metadata: { method: "passkey" },
    });
  });

  it("signs in without a password with a discoverable passkey, and not after the passkey is removed", async () => {
    const member = await newMember();
    const { authenticator, jar } = await registered(member);
    // A leftover pending sign-in of another account does not narrow a passwordless sign-in.
    const other = await newMember();
    await withTotp(other);
    const fresh: Jar = (await signInWithPassword(other)).jar;
    const options = await call("auth.passkeyOptions", fresh, { secondStep: false });
    expect(options.data.allowCredentials ?? []).toEqual([]);
    expect(options.data.userVerification).toBe("required");
    expect(
      (await call("auth.passkeySignIn", fresh, { response: authenticator.assert(options.data) })).data,
    ).toMatchObject({
      ok: true,
      step: "done",
    });
    expect((await query("auth.me", fresh)).data).toMatchObject({ user: { email: member.email } });

    // Another origin's assertion is refused.
    const stranger: Jar = {};
    const strangerOptions = await call("auth.passkeyOptions", stranger, { secondStep: false });
    expect(
      (
        await call("auth.passkeySignIn", stranger, {
          response: authenticator.assert(strangerOptions.data, { origin: "https://evil.example" }),
        })
      ).status,
    ).toBe(401);

    const { passkeys } = (await query("accountSecurity.overview", jar)).data as { passkeys: { id: string }[] };
    const stepUp = await passkeyStepUp(jar, authenticator);
    expect((await call("accountSecurity.passkeyRemove", jar, { id: passkeys[0]!.id, stepUp })).status).toBe(200);
    expect(await auditActions(member.userId)).toContainEqual(
      expect.objectContaining({
        action: "staff.factor_removed",
        metadata: expect.objectContaining({ factor: "passkey", name: "Praxis-Laptop" }),
      }),
    );
    const after: Jar = {};
    const afterOptions = await call("auth.passkeyOptions", after, { secondStep: false });
    expect(
      (await call("auth.passkeySignIn", after, { response: authenticator.assert(afterOptions.data) })).status,
    ).toBe(401);
    // Without factors the password alone signs in again.
    expect((await signInWithPassword(member)).answer.data).toMatchObject({ ok: true, step: "done" });
  });

  it("does not let one member remove another member's passkey", async () => {
    const owner = await newMember();
    const { jar } = await registered(owner);
    const { passkeys } = (await query("accountSecurity.overview", jar)).data as { passkeys: { id: string }[] };
    const other = await newMember();
    const { jar: otherJar } = await signInWithPassword(other);
    expect(
      (await call("accountSecurity.passkeyRemove", otherJar, { id: passkeys[0]!.id, stepUp: byPassword(other) }))
        .status,
    ).toBe(404);
  });
});
