import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, signatureRequests, sql, users } from "@clinsign/db";
import { logInCookie, type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  registerDocument,
  requestSignature,
  type FileServer,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";
import { createStaffUser } from "../identity/store/accounts";

let setup: SignatureTestApi;
let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let doc: string;
/** How long a signature made offline may wait on the desk's tablet, as this service is set up. */
const HOLD_MINUTES = 5;

beforeAll(async () => {
  setup = await startSignatureApi({
    names: ["Klinik Kiosk", "Klinik Fremd"],
    env: { KIOSK_OFFLINE_HOLD_MINUTES: String(HOLD_MINUTES) },
  });
  ({ api, files, org, other } = setup);
  doc = await registerDocument(api, files, org, { name: "Aufklärung" });
  for (const role of ["staff", "viewer"] as const)
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: `${role}@kiosk.test`,
      password: "kiosk-password-123",
      role,
    });
});
afterAll(() => setup?.close());

/** `signatures.startKiosk` over HTTP, to see the Set-Cookie it answers. */
async function startKiosk(cookie: string, id: string) {
  const response = await fetch(`${api.baseUrl}/trpc/signatures.startKiosk`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie },
    body: JSON.stringify({ id }),
  });
  const body = (await response.json()) as { result?: { data: { kioskPath: string } }; error?: { data: unknown } };
  return { status: response.status, setCookie: response.headers.getSetCookie(), body };
}

const kioskAudits = (id: string) =>
  api.services.db
    .select()
    .from(auditLog)
    .where(sql`${auditLog.action} = 'signature.kiosk_started' and ${auditLog.metadata}->>'signatureId' = ${id}`);

describe("signing at the desk (signatures.startKiosk)", () => {
  it("hands a one-time ticket to the signing page, audits the staff member and ends their staff session", async () => {
    const request = await requestSignature(api, org, doc, "P-kiosk-1", "desk");
    const cookie = await logInCookie(api, "staff@kiosk.test", "kiosk-password-123");
    const started = await startKiosk(cookie, request.id);
    expect(started.status).toBe(200);
    const kioskPath = started.body.result!.data.kioskPath;
    expect(kioskPath).toMatch(/^\/kiosk\/[A-Za-z0-9_-]{40,}$/);
    // The cookie is cleared, and the session it named no longer opens anything.
    expect(started.setCookie.some((c) => /^clinsign_session=;/.test(c) && /Max-Age=0/i.test(c))).toBe(true);
    await expect(api.trpc({ cookie }).auth.me.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });

    const [desk] = await api.services.db.select().from(users).where(eq(users.email, "staff@kiosk.test"));
    expect(await kioskAudits(request.id)).toEqual([
      expect.objectContaining({
        actorType: "user",
        actorId: desk!.id,
        metadata: expect.objectContaining({
          signatureId: request.id,
          startedBy: "staff@kiosk.test",
          staffSessionEnded: true,
        }),
      }),
    ]);
    // The request's timeline names the hand-over and who made it (read by another staff session).
    const owner = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    const { timeline } = await owner.signatures.detail.query({ id: request.id });
    expect(timeline.filter((e) => e.kind === "kiosk_started")).toEqual([
      expect.objectContaining({ actorType: "user", detail: "staff@kiosk.test" }),
    ]);
    // The audit entry carries no credential.
    const ticket = kioskPath.slice("/kiosk/".length);
    expect(JSON.stringify(await kioskAudits(request.id))).not.toContain(ticket);

    // The ticket opens the signing page once, like A4's.
    const opened = await api.trpc({}).signing.open.mutate({ ticket });
    expect(opened.state).toBe("ready");
    expect(opened.sessionToken).toBeTruthy();
    expect((await api.trpc({}).signing.open.mutate({ ticket })).state).toBe("unknown");
  });

  it("tells the tablet how long a signature made offline may wait there: the service's setting within the pass; a link until it expires (issue 35)", async () => {
    const request = await requestSignature(api, org, doc, "P-kiosk-hold", "desk");
    const started = await startKiosk(await logInCookie(api, "staff@kiosk.test", "kiosk-password-123"), request.id);
    const ticket = started.body.result!.data.kioskPath.slice("/kiosk/".length);
    const before = Date.now();
    const atDesk = await api.trpc({}).signing.open.mutate({ ticket });
    const holdUntil = Date.parse(atDesk.holdUntil!);
    expect(holdUntil).toBeGreaterThanOrEqual(before + HOLD_MINUTES * 60_000 - 1000);
    expect(holdUntil).toBeLessThanOrEqual(Date.now() + HOLD_MINUTES * 60_000);
    expect(holdUntil).toBeLessThan(Date.parse(atDesk.sessionExpiresAt!));

    // The patient's own link keeps a held signature until the request expires.
    const byLink = await api.trpc({}).signing.open.mutate({ token: request.token });
    expect(byLink.holdUntil).toBe(byLink.expiresAt);
  });

  it("shows staff since when the device has the request, until the request moves on (issue 35)", async () => {
    const request = await requestSignature(api, org, doc, "P-kiosk-waiting", "desk");
    const owner = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    expect((await owner.signatures.detail.query({ id: request.id })).kioskStartedAt).toBeNull();
    const before = Date.now();
    const started = await startKiosk(await logInCookie(api, "staff@kiosk.test", "kiosk-password-123"), request.id);
    const ticket = started.body.result!.data.kioskPath.slice("/kiosk/".length);
    const detail = await owner.signatures.detail.query({ id: request.id });
    expect(Date.parse(detail.kioskStartedAt!)).toBeGreaterThanOrEqual(before - 1000);
    const listed = await owner.signatures.list.query({ patientId: "P-kiosk-waiting", limit: 10 });
    expect(listed.items.map((item) => [item.status, item.kioskStartedAt])).toEqual([
      ["pending", detail.kioskStartedAt],
    ]);
    // The device signs: the request moves on, and the hand-over stays a fact of its history.
    const view = await api.trpc({}).signing.open.mutate({ ticket });
    await api.trpc({}).signing.sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: { kind: "typed", name: "Erika Muster" },
    });
    const signed = await owner.signatures.detail.query({ id: request.id });
    expect(signed.status).toBe("completed");
    expect(signed.kioskStartedAt).toBe(detail.kioskStartedAt);
  });

  it("is refused to viewers and to strangers, and ends no session then", async () => {
    const request = await requestSignature(api, org, doc, "P-kiosk-2", "desk");
    const viewer = await logInCookie(api, "viewer@kiosk.test", "kiosk-password-123");
    const refused = await startKiosk(viewer, request.id);
    expect(refused.status).toBe(403);
    expect(refused.setCookie).toEqual([]);
    await expect(api.trpc({ cookie: viewer }).auth.me.query()).resolves.toMatchObject({ role: "viewer" });
    expect((await startKiosk("", request.id)).status).toBe(401);
    expect(await kioskAudits(request.id)).toHaveLength(0);
  });

  it("keeps tenants apart: another organization's request is 404 and its staff stay signed in", async () => {
    const request = await requestSignature(api, org, doc, "P-kiosk-3", "desk");
    const stranger = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    const refused = await startKiosk(stranger, request.id);
    expect(refused.status).toBe(404);
    await expect(api.trpc({ cookie: stranger }).auth.me.query()).resolves.toBeTruthy();
    expect(await kioskAudits(request.id)).toHaveLength(0);
    // An id that names nothing is 404 as well (as `detail` answers it); no id at all is 400.
    expect((await startKiosk(stranger, "not-a-uuid")).status).toBe(404);
    expect((await startKiosk(stranger, undefined as unknown as string)).status).toBe(400);
  });

  it("refuses requests that cannot be signed now (expired, draft) with 409 and keeps the session", async () => {
    const expired = await requestSignature(api, org, doc, "P-kiosk-4", "desk");
    await backdateExpiry(api, expired.id);
    const draft = await requestSignature(api, org, doc, "P-kiosk-5", "desk");
    await api.services.db
      .update(signatureRequests)
      .set({ visibility: "draft" })
      .where(eq(signatureRequests.id, draft.id));
    const cookie = await logInCookie(api, "staff@kiosk.test", "kiosk-password-123");
    for (const id of [expired.id, draft.id]) {
      const refused = await startKiosk(cookie, id);
      expect(refused.status).toBe(409);
      expect(refused.setCookie).toEqual([]);
    }
    await expect(api.trpc({ cookie }).auth.me.query()).resolves.toBeTruthy();
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, expired.id));
    expect(row!.status).toBe("expired");
  });
});
