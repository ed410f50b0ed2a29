import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, memberships, staffInvites, staffSessions, users } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { sha256Hex } from "../crypto";
import { IdentityStore } from "../identity/store/identity-store";
import { pruneEndedStaffSessions } from "../identity/store/staff-sessions";
import { createStaffUser } from "../identity/store/accounts";
import { STAFF_SESSION_COOKIE } from "../identity/cookies";

let api: TestApi;
let org: TestOrg;
let owner: string;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  owner = await logInCookie(api, org.ownerEmail, org.ownerPassword);
});
afterAll(() => api?.close());

async function member(role: "owner" | "admin" | "staff" | "viewer", tag: string = role) {
  const email = `${tag}-${Math.random().toString(36).slice(2, 8)}@example.org`;
  const { userId } = await createStaffUser(api.services, {
    organizationId: org.orgId,
    email,
    password: "long enough pw",
    role,
  });
  return { userId, email, cookie: await logInCookie(api, email, "long enough pw") };
}

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error: { data?: { httpStatus?: number } }) => error.data?.httpStatus ?? 0,
  );

async function auditActions(): Promise<string[]> {
  const rows = await api.services.db
    .select({ action: auditLog.action })
    .from(auditLog)
    .where(eq(auditLog.organizationId, org.orgId));
  return rows.map((r) => r.action);
}

/** The invite link from the outbox, revealed once by the owner as the console does. */
async function inviteLinkToken(
  email: string,
  role: "owner" | "admin" | "staff" | "viewer",
  cookie = owner,
): Promise<string> {
  await api.trpc({ cookie }).users.invite.mutate({ email, role });
  const messages = await api.trpc({ cookie: owner }).messages.list.query({ channel: "email", limit: 5 });
  const mail = messages.find((m) => m.recipients.includes(email))!;
  expect(mail.body).not.toMatch(/invite#[A-Za-z0-9_-]{20,}/);
  const revealed = await api.trpc({ cookie: owner }).messages.reveal.mutate({ id: mail.id });
  return /\/invite#([A-Za-z0-9_-]+)/.exec(revealed.body)![1]!;
}

describe("invitations", () => {
  it("e-mails a single-use link; accepting sets name and password and signs in with the invited role", async () => {
    const token = await inviteLinkToken("new.colleague@example.org", "staff");
    const anonymous = api.trpc({});
    const described = await anonymous.invitations.describe.query({ token });
    expect(described).toMatchObject({
      organization: "Klinik Nord",
      email: "new.colleague@example.org",
      role: "staff",
      existingAccount: false,
    });

    const accepted = await fetch(`${api.baseUrl}/trpc/invitations.accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, name: "Neue Kollegin", password: "a good password" }),
    });
    expect(accepted.status).toBe(200);
    const cookie = accepted.headers.getSetCookie()[0]!;
    expect(cookie).toContain("HttpOnly");
    const me = await api.trpc({ cookie: cookie.split(";")[0]! }).auth.me.query();
    expect(me).toMatchObject({ user: { email: "new.colleague@example.org", name: "Neue Kollegin" }, role: "staff" });
    await logInCookie(api, "new.colleague@example.org", "a good password");

    // Used once: the same link is refused, for describing and accepting alike.
    expect(await statusOf(anonymous.invitations.describe.query({ token }))).toBe(404);
    expect(
      await statusOf(
        anonymous.invitations.accept.mutate({ token, name: "Zweiter Versuch", password: "another password" }),
      ),
    ).toBe(404);
    expect(await auditActions()).toEqual(expect.arrayContaining(["staff.invited", "staff.invite_accepted"]));
  });

  it("without a mail server says no e-mail left and shows the link once to the inviting member (audited)", async () => {
    const result = await api
      .trpc({ cookie: owner })
      .users.invite.mutate({ email: "no.mail@example.org", role: "staff" });
    expect(result).toMatchObject({ delivery: "outbox", link: expect.stringMatching(/\/invite#[A-Za-z0-9_-]{40,}$/) });
    const token = result.link!.split("#")[1]!;
    expect(await api.trpc({}).invitations.describe.query({ token })).toMatchObject({ email: "no.mail@example.org" });
    const shown = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "staff.invite_link_shown")));
    expect(shown.map((entry) => entry.metadata)).toContainEqual({ inviteId: result.id });
    // The stored message keeps the link redacted, as before.
    const messages = await api.trpc({ cookie: owner }).messages.list.query({ channel: "email", limit: 5 });
    expect(messages.find((m) => m.recipients.includes("no.mail@example.org"))!.body).not.toContain(token);
  });

  it("refuses an expired link, and a newer invite replaces the older link", async () => {
    const first = await inviteLinkToken("late@example.org", "viewer");
    const second = await inviteLinkToken("late@example.org", "viewer");
    const anonymous = api.trpc({});
    expect(await statusOf(anonymous.invitations.describe.query({ token: first }))).toBe(404);
    await api.services.db
      .update(staffInvites)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(staffInvites.tokenHash, sha256Hex(second)));
    expect(
      await statusOf(anonymous.invitations.accept.mutate({ token: second, name: "Spät", password: "late password" })),
    ).toBe(404);
    const [user] = await api.services.db.select().from(users).where(eq(users.email, "late@example.org"));
    expect(user).toBeUndefined();
  });

  it("lets only owners invite owners, and refuses inviting a current member", async () => {
    const admin = await member("admin");
    expect(
      await statusOf(
        api.trpc({ cookie: admin.cookie }).users.invite.mutate({ email: "boss@example.org", role: "owner" }),
      ),
    ).toBe(403);
    expect(
      await statusOf(api.trpc({ cookie: owner }).users.invite.mutate({ email: org.ownerEmail, role: "staff" })),
    ).toBe(409);
  });
});

describe("roles", () => {
  it("protects the last owner and lets only owners make or unmake owners", async () => {
    const ownerId = (await api.trpc({ cookie: owner }).auth.me.query()).user.id;
    const admin = await member("admin");
    const adminApi = api.trpc({ cookie: admin.cookie });
    const ownerApi = api.trpc({ cookie: owner });

    expect(await statusOf(ownerApi.users.changeRole.mutate({ userId: ownerId, role: "admin" }))).toBe(409);
    expect(await statusOf(adminApi.users.changeRole.mutate({ userId: admin.userId, role: "owner" }))).toBe(403);
    expect(await statusOf(adminApi.users.changeRole.mutate({ userId: ownerId, role: "staff" }))).toBe(403);

    await ownerApi.users.changeRole.mutate({ userId: admin.userId, role: "owner" });
    // Two owners now: one may step down, and the other is then the last.
    await ownerApi.users.changeRole.mutate({ userId: admin.userId, role: "viewer" });
    expect((await adminApi.auth.me.query()).role).toBe("viewer");
    expect(await statusOf(adminApi.documents.create.mutate({} as never))).toBe(403);
    expect(await auditActions()).toContain("staff.role_changed");
  });

  it("answers 404 for a user of another organization", async () => {
    const other = await api.createOrg("Andere Klinik");
    const [foreign] = await api.services.db
      .select()
      .from(memberships)
      .where(eq(memberships.organizationId, other.orgId));
    expect(
      await statusOf(api.trpc({ cookie: owner }).users.changeRole.mutate({ userId: foreign!.userId, role: "viewer" })),
    ).toBe(404);
    expect(await statusOf(api.trpc({ cookie: owner }).users.deactivate.mutate({ userId: foreign!.userId }))).toBe(404);
  });

  it("lists members page by page with the staff list contract", async () => {
    const first = await api.trpc({ cookie: owner }).users.list.query({ limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    const second = await api.trpc({ cookie: owner }).users.list.query({ limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((u) => u.id)).not.toContain(first.items[0]!.id);
  });
});

describe("deactivation", () => {
  it("refuses the member's cookie on the very next request and their sign-in, until reactivated", async () => {
    const nurse = await member("staff", "nurse");
    const nurseApi = api.trpc({ cookie: nurse.cookie });
    expect((await nurseApi.auth.me.query()).role).toBe("staff");
    const result = await api.trpc({ cookie: owner }).users.deactivate.mutate({ userId: nurse.userId });
    expect(result.endedSessions).toBe(1);
    expect(await statusOf(nurseApi.auth.me.query())).toBe(401);
    await expect(logInCookie(api, nurse.email, "long enough pw")).rejects.toThrow(/401/);

    await api.trpc({ cookie: owner }).users.reactivate.mutate({ userId: nurse.userId });
    const again = await logInCookie(api, nurse.email, "long enough pw");
    expect((await api.trpc({ cookie: again }).auth.me.query()).user.email).toBe(nurse.email);
    expect(await auditActions()).toEqual(
      expect.arrayContaining(["staff.deactivated", "staff.reactivated", "staff.session_ended"]),
    );
  });

  it("refuses deactivating oneself and the last owner", async () => {
    const ownerId = (await api.trpc({ cookie: owner }).auth.me.query()).user.id;
    expect(await statusOf(api.trpc({ cookie: owner }).users.deactivate.mutate({ userId: ownerId }))).toBe(409);
  });
});

describe("session lifetimes", () => {
  const sessionOf = async (cookie: string) => {
    const hash = sha256Hex(cookie.slice(STAFF_SESSION_COOKIE.length + 1));
    const [row] = await api.services.db.select().from(staffSessions).where(eq(staffSessions.tokenHash, hash));
    return row!;
  };

  it("ends a session idle longer than the organization's idle time, and marks activity at most once a minute", async () => {
    const { cookie } = await member("staff", "idle");
    const staffSession = await sessionOf(cookie);
    // Seen 30 s ago: a request does not write again.
    const recent = new Date(Date.now() - 30_000);
    await api.services.db
      .update(staffSessions)
      .set({ lastSeenAt: recent })
      .where(eq(staffSessions.id, staffSession.id));
    await api.trpc({ cookie }).auth.me.query();
    expect((await sessionOf(cookie)).lastSeenAt.getTime()).toBe(recent.getTime());
    // Seen 59 min ago (idle time 60 min): the request counts and moves last seen to now.
    await api.services.db
      .update(staffSessions)
      .set({ lastSeenAt: new Date(Date.now() - 59 * 60_000) })
      .where(eq(staffSessions.id, staffSession.id));
    await api.trpc({ cookie }).auth.me.query();
    expect(Date.now() - (await sessionOf(cookie)).lastSeenAt.getTime()).toBeLessThan(10_000);
    // Idle 61 minutes: over.
    await api.services.db
      .update(staffSessions)
      .set({ lastSeenAt: new Date(Date.now() - 61 * 60_000) })
      .where(eq(staffSessions.id, staffSession.id));
    expect(await statusOf(api.trpc({ cookie }).auth.me.query())).toBe(401);
    // The sweep deletes the ended session (its address and device go with it), and only that one.
    await pruneEndedStaffSessions(IdentityStore.of(api.services));
    const left = await api.services.db.select({ id: staffSessions.id }).from(staffSessions);
    expect(left.map((row) => row.id)).not.toContain(staffSession.id);
    expect(await api.trpc({ cookie: owner }).auth.me.query()).toMatchObject({ role: "owner" });
  });

  it("ends a busy session after the absolute lifetime, and a shorter setting applies to open sessions", async () => {
    const { cookie } = await member("staff", "busy");
    const staffSession = await sessionOf(cookie);
    expect(staffSession.expiresAt.getTime() - staffSession.createdAt.getTime()).toBeCloseTo(12 * 3600_000, -4);
    await api.services.db
      .update(staffSessions)
      .set({ createdAt: new Date(Date.now() - 5 * 3600_000) })
      .where(eq(staffSessions.id, staffSession.id));
    expect((await api.trpc({ cookie }).auth.me.query()).role).toBe("staff");
    await api.trpc({ cookie: owner }).organization.update.mutate({ staffSessionMaxHours: 4 });
    expect(await statusOf(api.trpc({ cookie }).auth.me.query())).toBe(401);
    await api.trpc({ cookie: owner }).organization.update.mutate({ staffSessionMaxHours: 12 });
    expect(await api.trpc({ cookie: owner }).organization.settings.query()).toMatchObject({
      staffSessionIdleMinutes: 60,
      staffSessionMaxHours: 12,
    });
  });
});

describe("own sessions", () => {
  it("lists the member's sessions with device and the current one marked, ends one, and signs out everywhere else", async () => {
    const { email, cookie } = await member("viewer", "phone");
    const login = (userAgent: string) =>
      fetch(`${api.baseUrl}/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": userAgent },
        body: JSON.stringify({ email, password: "long enough pw" }),
      }).then((r) => r.headers.getSetCookie()[0]!.split(";")[0]!);
    const firefox = await login("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0");
    const iphone = await login(
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    );
    const mine = api.trpc({ cookie: firefox });
    const { items } = await mine.account.sessions.query();
    expect(items).toHaveLength(3);
    expect(items.filter((s) => s.current).map((s) => s.device)).toEqual(["Firefox on Windows"]);
    expect(items.map((s) => s.device)).toContain("Safari on iOS");

    const phone = items.find((s) => s.device === "Safari on iOS")!;
    await mine.account.endSession.mutate({ id: phone.id });
    expect(await statusOf(api.trpc({ cookie: iphone }).auth.me.query())).toBe(401);

    // Someone else's session id is not the member's to end.
    const others = await api.trpc({ cookie: owner }).account.sessions.query();
    expect(await statusOf(mine.account.endSession.mutate({ id: others.items[0]!.id }))).toBe(404);

    expect(await mine.account.endOtherSessions.mutate()).toEqual({ ended: 1 });
    expect(await statusOf(api.trpc({ cookie }).auth.me.query())).toBe(401);
    expect((await mine.auth.me.query()).user.email).toBe(email);
    const ended = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "staff.session_ended")));
    expect(ended.length).toBeGreaterThanOrEqual(2);
  });
});
