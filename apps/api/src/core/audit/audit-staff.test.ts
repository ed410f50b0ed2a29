import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, sql } from "@clinsign/db";
import { logInCookie, logSink, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession, query } from "../../testing/forms";
import type { OrgContext } from "../context";
import { recordAudit } from "./audit";
import { chainOrganizationNow } from "../jobs/audit-chain";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let cookie: string;
let staffCookie: string;
const log = logSink();

beforeAll(async () => {
  api = await startTestApi({}, { logSink: log.sink });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  await createStaffUser(api.services, {
    organizationId: org.orgId,
    email: "nurse@audit.test",
    password: "nurse-password-1",
    role: "staff",
    name: "Nina Nurse",
  });
  staffCookie = await logInCookie(api, "nurse@audit.test", "nurse-password-1");
});
afterAll(() => api?.close());

describe("staff audit log (the list contract)", () => {
  it("filters by action, template and actor type, pages by cursor while entries arrive, and shows no other organization", async () => {
    const t = await activeTemplate(org);
    const sessionId = await newSession(api, org, t.identifier);
    await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { name: "Erika" } } });
    for (let i = 0; i < 4; i++) await recordAudit(org.ctx, { action: "test.step", metadata: { i } });
    await recordAudit(other.ctx, { action: "test.step", metadata: { i: "foreign" } });
    const client = api.trpc({ cookie });

    const submitted = await client.audit.entries.query({ action: "form.submitted", templateIdentifier: t.identifier });
    // No chainer runs in tests unless asked: the list says the entry is not chained yet.
    expect(submitted.items).toEqual([
      expect.objectContaining({
        action: "form.submitted",
        actorType: "embed_session",
        templateIdentifier: t.identifier,
        chained: false,
      }),
    ]);
    expect((await client.audit.entries.query({ actorType: "system", action: "test.step" })).items).toHaveLength(4);
    expect((await client.audit.entries.query({ actorType: "embed_session", action: "test.step" })).items).toHaveLength(
      0,
    );

    const first = await client.audit.entries.query({ action: "test.step", limit: 2 });
    expect(first.items.map((e) => e.metadata.i)).toEqual([3, 2]);
    await recordAudit(org.ctx, { action: "test.step", metadata: { i: 4 } });
    const second = await client.audit.entries.query({ action: "test.step", limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((e) => e.metadata.i)).toEqual([1, 0]);
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });

    const future = await client.audit.entries.query({ createdFrom: new Date(Date.now() + 60_000).toISOString() });
    expect(future.items).toEqual([]);
    const past = await client.audit.entries.query({
      createdTo: new Date(Date.now() + 60_000).toISOString(),
      action: "test.step",
      sort: "oldest",
      limit: 1,
    });
    expect(past.items[0]!.metadata.i).toBe(0);
    await expect(client.audit.entries.query({ cursor: "bad" })).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });

  it("verifies the chain, and names the entry where an edit breaks it", async () => {
    await recordAudit(org.ctx, { action: "test.verify" });
    const client = api.trpc({ cookie: staffCookie });
    const ok = await client.audit.verify.mutate();
    expect(ok).toMatchObject({ ok: true, brokenAt: null });
    expect(ok.entries).toBeGreaterThan(0);

    const [victim] = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "test.verify")));
    await api.services.db.execute(
      sql`update audit_log set metadata = '{"edited": true}'::jsonb where id = ${victim!.id}`,
    );
    expect(await client.audit.verify.mutate()).toMatchObject({ ok: false, brokenAt: victim!.seq });
    // Another organization's chain is its own, and untouched.
    expect(
      await api.trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) }).audit.verify.mutate(),
    ).toMatchObject({ ok: true });
  });

  it("shows addresses and user agents to owners, admins and API tokens only: the staff role gets null in every list", async () => {
    const from = {
      ...org.ctx,
      request: { requestId: "r-net", ip: "203.0.113.7", userAgent: "Mozilla/5.0 (Patient Phone)" },
    };
    await recordAudit(from, { action: "test.network" });
    const network = { ip: "203.0.113.7", userAgent: "Mozilla/5.0 (Patient Phone)" };
    const hidden = { ip: null, userAgent: null };
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "admin@audit.test",
      password: "admin-password-1",
      role: "admin",
    });
    const adminCookie = await logInCookie(api, "admin@audit.test", "admin-password-1");
    for (const c of [cookie, adminCookie]) {
      expect((await api.trpc({ cookie: c }).audit.entries.query({ action: "test.network" })).items[0]).toMatchObject(
        network,
      );
      expect((await api.trpc({ cookie: c }).audit.list.query({ action: "test.network" }))[0]).toMatchObject(network);
    }
    expect((await api.trpc({ bearer: org.token }).audit.list.query({ action: "test.network" }))[0]).toMatchObject(
      network,
    );
    const f13 = await api.request(
      "GET",
      `/api/embed/audit-logs?${query({ token: org.token, orgId: org.orgId, action: "test.network" })}`,
    );
    expect(f13.body.logs[0]).toMatchObject(network);

    const staff = api.trpc({ cookie: staffCookie });
    expect((await staff.audit.entries.query({ action: "test.network" })).items[0]).toMatchObject({
      action: "test.network",
      ...hidden,
    });
    expect((await staff.audit.list.query({ action: "test.network" }))[0]).toMatchObject({
      action: "test.network",
      ...hidden,
    });
  });

  it("exports CSV for owners and admins only: staff get 403", async () => {
    // Entries so far were chained by the verify above; this one is not yet (no chainer runs in tests unless asked).
    await recordAudit(org.ctx, { action: "test.step", metadata: { i: "unchained" } });
    const download = (c: string) =>
      fetch(`${api.baseUrl}/staff/audit-log/export?${query({ action: "test.step" })}`, { headers: { cookie: c } });
    const res = await download(cookie);
    expect(res.status).toBe(200);
    const text = new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(3));
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe("seq,created_at,action,template,actor_type,actor_id,ip,user_agent,metadata,hash,chain_pos");
    expect(lines.slice(1).every((l) => l.includes(",test.step,"))).toBe(true);
    expect(lines).toHaveLength(7);
    expect(text).not.toContain("foreign");
    // Newest first: the unchained entry says so instead of an empty hash; the chained ones carry (hash, chain_pos).
    expect(lines[1]).toContain('"{""i"":""unchained""}",pending (unchained),');
    expect(lines[1]!.endsWith(",pending (unchained),")).toBe(true);
    expect(lines.slice(2).every((l) => /,[0-9a-f]{64},\d+$/.test(l))).toBe(true);

    await chainOrganizationNow(api.services.db, org.orgId);
    const chained = new TextDecoder()
      .decode(new Uint8Array(await (await download(cookie)).arrayBuffer()).slice(3))
      .split("\r\n")
      .filter(Boolean);
    expect(chained.slice(1).every((l) => /,[0-9a-f]{64},\d+$/.test(l))).toBe(true);

    const refused = await download(staffCookie);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden" } });
  });
});

describe("who acted, as the console shows it", () => {
  const login = (email: string, password: string) =>
    fetch(`${api.baseUrl}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "desk-browser" },
      body: JSON.stringify({ email, password }),
    });
  const entries = async (action: string) =>
    api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, action)));

  it("records sign-ins and wrong passwords with the staff member's name, never the password, and nothing that tells unknown addresses apart", async () => {
    const signedInBefore = (await entries("staff.signed_in")).length;
    expect((await login("nurse@audit.test", "nurse-password-1")).status).toBe(200);
    expect((await login("nurse@audit.test", "wrong-password-42")).status).toBe(401);
    const unknown = await login("nobody-here@audit.test", "wrong-password-43");
    expect(unknown.status).toBe(401);

    const signedIn = await entries("staff.signed_in");
    expect(signedIn.length).toBe(signedInBefore + 1);
    expect(signedIn.at(-1)).toMatchObject({ organizationId: org.orgId, actorType: "user", userAgent: "desk-browser" });
    const failed = await entries("staff.sign_in_failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      organizationId: org.orgId,
      actorType: "user",
      actorId: signedIn.at(-1)!.actorId,
    });

    const listed = await api.trpc({ cookie }).audit.entries.query({ action: "staff.sign_in_failed" });
    expect(listed.items[0]).toMatchObject({ actorType: "user", actorName: "Nina Nurse" });
    const own = await api.trpc({ cookie }).audit.entries.query({ action: "staff.signed_in", limit: 1 });
    expect(own.items[0]!.actorName).toBe("Nina Nurse");

    const everything = JSON.stringify(await api.services.db.select().from(auditLog)) + log.lines.join("\n");
    for (const secret of ["nurse-password-1", "wrong-password-42", "wrong-password-43", "nobody-here@audit.test"])
      expect(everything).not.toContain(secret);
    expect(log.lines.filter((line) => line.includes("staff.sign_in_failed"))).toHaveLength(2);
  });

  it("lists the patient who signs as `signer` in the console and as `portal` in F13", async () => {
    const signerCtx: OrgContext = { ...org.ctx, actor: { type: "signer", id: null } };
    await recordAudit(signerCtx, { action: "signature.signed", metadata: { signatureId: "s-1" } });
    const staffView = await api
      .trpc({ cookie })
      .audit.entries.query({ action: "signature.signed", actorType: "signer" });
    expect(staffView.items).toEqual([expect.objectContaining({ actorType: "signer", actorName: null })]);
    const f13 = await api.request(
      "GET",
      `/api/embed/audit-logs?${new URLSearchParams({ ...creds(org), action: "signature.signed" })}`,
    );
    expect(f13.status).toBe(200);
    expect(JSON.stringify(f13.body)).toContain('"actorType":"portal"');
    expect(JSON.stringify(f13.body)).not.toContain("signer");
  });
  it("shows entries written with the old actor words in today's words, filters them so, and chains them as stored", async () => {
    // A fresh organization: an earlier test broke the first one's chain on purpose.
    const fresh = await api.createOrg("Klinik Alt");
    const at = new Date();
    // As entries written before the actor types were renamed: never rewritten, the hash covers them.
    await api.services.db.insert(auditLog).values([
      { organizationId: fresh.orgId, action: "test.legacy_step", actorType: "session", actorId: "fs-1", createdAt: at },
      { organizationId: fresh.orgId, action: "test.legacy_step", actorType: "portal", actorId: "fr-1", createdAt: at },
    ]);
    await recordAudit({ ...fresh.ctx, actor: { type: "embed_session", id: "fs-2" } }, { action: "test.legacy_step" });
    await recordAudit({ ...fresh.ctx, actor: { type: "sms_recipient", id: "fr-2" } }, { action: "test.legacy_step" });
    const client = api.trpc({ cookie: await logInCookie(api, fresh.ownerEmail, fresh.ownerPassword) });
    const embedded = await client.audit.entries.query({ action: "test.legacy_step", actorType: "embed_session" });
    expect(embedded.items.map((e) => [e.actorType, e.actorId])).toEqual([
      ["embed_session", "fs-2"],
      ["embed_session", "fs-1"],
    ]);
    // A bookmarked filter with the old word still means the same actors.
    const recipients = await client.audit.entries.query({ action: "test.legacy_step", actorType: "portal" });
    expect(recipients.items.map((e) => [e.actorType, e.actorId])).toEqual([
      ["sms_recipient", "fr-2"],
      ["sms_recipient", "fr-1"],
    ]);
    const stored = await api.services.db
      .select({ actorType: auditLog.actorType, actorKind: auditLog.actorKind })
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, fresh.orgId), eq(auditLog.action, "test.legacy_step")))
      .orderBy(auditLog.seq);
    expect(stored).toEqual([
      { actorType: "session", actorKind: "embed_session" },
      { actorType: "portal", actorKind: "sms_recipient" },
      { actorType: "embed_session", actorKind: "embed_session" },
      { actorType: "sms_recipient", actorKind: "sms_recipient" },
    ]);
    // F13 keeps the interface document's words for old and new entries alike.
    const f13 = await api.request(
      "GET",
      `/api/embed/audit-logs?${new URLSearchParams({ ...creds(fresh), action: "test.legacy_step" })}`,
    );
    expect(f13.status).toBe(200);
    expect(f13.body.logs.map((l: { actorType: string; actorId: string }) => [l.actorType, l.actorId])).toEqual([
      ["portal", "fr-2"],
      ["session", "fs-2"],
      ["portal", "fr-1"],
      ["session", "fs-1"],
    ]);
    // The chain covers what was stored: the old words verify as they are.
    const verdict = await client.audit.verify.mutate();
    expect(verdict, JSON.stringify(verdict)).toMatchObject({ ok: true });
  });
});
