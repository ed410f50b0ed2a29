import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, organizations, signatureRequests, sql, users } from "@clinsign/db";
import { ensureInstitution } from "../branding/branding";
import { sha256Hex } from "../crypto";
import { encodeCursor } from "../lists/keyset";
import { logInCookie, type TestApi, type TestOrg } from "../../testing/harness";
import {
  inOneHour,
  registerDocument,
  requestSignature,
  type FileServer,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";
import { markSealGaveUp, sealContext } from "./seal";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let staff: ReturnType<TestApi["trpc"]>;
let otherStaff: ReturnType<TestApi["trpc"]>;
let docA: string;
let docB: string;
let otherDoc: string;

let setup: SignatureTestApi;

beforeAll(async () => {
  setup = await startSignatureApi();
  ({ api, files, org, other } = setup);
  staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
  otherStaff = api.trpc({ cookie: await logInCookie(api, other.ownerEmail, other.ownerPassword) });
  docA = await registerDocument(api, files, org, { name: "Narkose" });
  docB = await registerDocument(api, files, org, { name: "Impfung" });
  otherDoc = await registerDocument(api, files, other, { name: "Fremd" });
});
afterAll(() => setup?.close());

type Row = typeof signatureRequests.$inferInsert;

/** A request stored directly, with a chosen state and time (several may share one). */
async function insertRequest(o: TestOrg, documentId: string, options: Partial<Row> & { institution?: string } = {}) {
  const institution = options.institution ?? "station-1";
  const institutionId = await ensureInstitution(o.ctx, institution);
  const token = `t-${Math.random()}`;
  const [row] = await o.ctx.scope
    .insert(signatureRequests, {
      documentId,
      patientId: "P-1",
      institutionId,
      institutionExternalId: institution,
      orderBy: "dr.who",
      expiresAt: new Date(Date.now() + 86_400_000),
      tokenHash: sha256Hex(token),
      tokenEnc: api.services.secrets.seal(token),
      ...options,
    })
    .returning({ id: signatureRequests.id });
  return row!.id;
}

/** Every id of a filtered list, page by page. */
async function allIds(input: Record<string, unknown>, client = staff, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.signatures.list.query({ ...input, limit, cursor });
    ids.push(...result.items.map((i) => i.id));
    if (!result.nextCursor) return ids;
    cursor = result.nextCursor;
  }
  throw new Error("too many pages");
}

describe("signatures.list (the organization-wide request list)", () => {
  it("filters by status (failed and sealing apart), visibility, patient, document, institution and time, never showing a foreign organization's rows", async () => {
    const range = { createdFrom: "2023-01-01T00:00:00Z", createdTo: "2023-02-01T00:00:00Z" };
    const at = (day: number) => new Date(`2023-01-${String(day).padStart(2, "0")}T08:00:00Z`);
    const ids = {
      pending: await insertRequest(org, docA, { createdAt: at(1), patientId: "P-7" }),
      opened: await insertRequest(org, docA, { createdAt: at(2), status: "opened", institution: "station-2" }),
      sealing: await insertRequest(org, docA, { createdAt: at(3), status: "sealing", sealError: "transient" }),
      failed: await insertRequest(org, docB, {
        createdAt: at(4),
        status: "sealing",
        sealError: "certificate missing",
        sealFailedAt: at(5),
      }),
      completed: await insertRequest(org, docB, { createdAt: at(5), status: "completed", completedAt: at(6) }),
      declined: await insertRequest(org, docB, {
        createdAt: at(6),
        status: "declined",
        declinedAt: at(6),
        visibility: "draft",
      }),
      expired: await insertRequest(org, docA, { createdAt: at(7), status: "expired", expiresAt: at(8) }),
      // Past its expiry but not swept yet: shown as expired, never as pending.
      lapsed: await insertRequest(org, docA, { createdAt: at(8), expiresAt: new Date(Date.now() - 1000) }),
    };
    // The other organization: same patient, same institution id, same time.
    const foreign = await insertRequest(other, otherDoc, {
      createdAt: at(3),
      patientId: "P-7",
      status: "sealing",
      sealFailedAt: at(4),
    });

    const byStatus = async (status: string) => allIds({ ...range, status });
    expect(await byStatus("pending")).toEqual([ids.pending]);
    expect(await byStatus("opened")).toEqual([ids.opened]);
    expect(await byStatus("sealing")).toEqual([ids.sealing]);
    expect(await byStatus("failed")).toEqual([ids.failed]);
    expect(await byStatus("completed")).toEqual([ids.completed]);
    expect(await byStatus("declined")).toEqual([ids.declined]);
    expect(await byStatus("expired")).toEqual([ids.expired]);

    const all = await allIds(range);
    expect(all).toEqual([
      ids.lapsed,
      ids.expired,
      ids.declined,
      ids.completed,
      ids.failed,
      ids.sealing,
      ids.opened,
      ids.pending,
    ]);
    expect(await allIds({ ...range, sort: "oldest" })).toEqual([...all].reverse());
    expect(all).not.toContain(foreign);

    const page = await staff.signatures.list.query({ ...range, limit: 50 });
    const item = (id: string) => page.items.find((i) => i.id === id)!;
    expect(item(ids.failed)).toMatchObject({
      status: "failed",
      documentId: docB,
      documentName: "Impfung",
      documentVersion: 1,
      institutionId: "station-1",
      orderBy: "dr.who",
    });
    expect(item(ids.lapsed).status).toBe("expired");
    expect(item(ids.completed)).toMatchObject({
      status: "completed",
      completedAt: at(6).toISOString(),
      createdAt: at(5).toISOString(),
    });
    expect(Object.keys(item(ids.pending)).sort()).toEqual(
      [
        "id",
        "patientId",
        "documentId",
        "documentName",
        "documentVersion",
        "institutionId",
        "orderBy",
        "status",
        "visibility",
        "createdAt",
        "expiresAt",
        "openedAt",
        "completedAt",
        "declinedAt",
        "kioskStartedAt",
      ].sort(),
    );

    expect(await allIds({ ...range, visibility: "draft" })).toEqual([ids.declined]);
    expect(await allIds({ ...range, visibility: "active" })).not.toContain(ids.declined);
    expect(await allIds({ ...range, patientId: "P-7" })).toEqual([ids.pending]);
    expect(await allIds({ ...range, documentId: docB })).toEqual([ids.declined, ids.completed, ids.failed]);
    expect(await allIds({ ...range, institutionId: "station-2" })).toEqual([ids.opened]);
    expect(await allIds({ createdFrom: at(3).toISOString(), createdTo: at(5).toISOString() })).toEqual([
      ids.failed,
      ids.sealing,
    ]);
    expect(await allIds({ ...range, documentId: docA, status: "pending" })).toEqual([ids.pending]);

    // The other organization sees only its own, and cannot reach ours by our document's id.
    expect(await allIds({ ...range }, otherStaff)).toEqual([foreign]);
    expect(await allIds({ ...range, status: "failed" }, otherStaff)).toEqual([foreign]);
    expect(await allIds({ documentId: docA }, otherStaff)).toEqual([]);
  });

  it("continues after the same row when newer rows arrive, ties in time included", async () => {
    const t0 = new Date("2022-06-01T10:00:00.000Z");
    const range = { createdFrom: "2022-06-01T00:00:00Z", createdTo: "2022-06-02T00:00:00Z" };
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        await insertRequest(org, docA, {
          createdAt: i < 3 ? t0 : new Date(t0.getTime() + i * 1000),
          institution: "paging",
        }),
      );
    // Newest first: the two later rows, then the three of t0 by id, descending.
    const expected = [ids[4]!, ids[3]!, ...ids.slice(0, 3).sort().reverse()];
    const first = await staff.signatures.list.query({ ...range, limit: 2 });
    expect(first).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    expect(first.items.map((i) => i.id)).toEqual(expected.slice(0, 2));
    // Newer rows arrive, one of them inside the range: the pages after the cursor do not shift.
    await insertRequest(org, docA, { createdAt: new Date(t0.getTime() + 10_000), institution: "paging" });
    await insertRequest(org, docA, { institution: "paging" });
    const seen = first.items.map((i) => i.id);
    let cursor: string | null = first.nextCursor;
    while (cursor) {
      const page = await staff.signatures.list.query({ ...range, limit: 2, cursor });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(expected);
    // The same under a filter whose index is used (institution), oldest first.
    expect((await allIds({ ...range, institutionId: "paging", sort: "oldest" })).slice(0, 5)).toEqual(
      [...expected].reverse(),
    );
  });

  it("refuses a cursor it did not issue (400) and needs a staff session (401 for a token)", async () => {
    for (const cursor of ["not-ours", encodeCursor(["yesterday", "x"]), encodeCursor([1])]) {
      await expect(staff.signatures.list.query({ cursor })).rejects.toMatchObject({
        data: { httpStatus: 400, appCode: "invalid_request" },
      });
    }
    await expect(staff.signatures.list.query({ status: "lost" as never })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(staff.signatures.list.query({ documentId: "not-a-uuid" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(api.trpc({ bearer: org.token }).signatures.list.query({})).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });
});

describe("signatures.detail and signatures.update", () => {
  it("shows the timeline of open, sign and the webhook deliveries, and never the link, the token or its hash", async () => {
    await api.services.db
      .update(organizations)
      .set({ webhookUrls: [`${files.origin}/hook`] })
      .where(eq(organizations.id, org.orgId));
    files.set("/hook", (_req, res) => res.writeHead(204).end());
    try {
      const created = await staff.signatures.create.mutate({
        patient_id: "P-timeline",
        document_id: docA,
        institution_id: "station-9",
        expiration_date: inOneHour(),
        order_by: "dr.staff",
      });
      const token = created.signing_link.slice(created.signing_link.lastIndexOf("/") + 1);
      const signing = api.trpc({}).signing;
      const { sessionToken } = await signing.open.mutate({ token });
      const signed = await signing.sign.mutate({
        sessionToken: sessionToken!,
        consent: true,
        signature: { kind: "typed", name: "Erika Mustermann" },
      });

      const detail = await staff.signatures.detail.query({ id: created.signature_id });
      expect(detail).toMatchObject({
        id: created.signature_id,
        patientId: "P-timeline",
        institutionId: "station-9",
        orderBy: "dr.staff",
        documentName: "Narkose",
        assignmentUrl: null,
        signatureMethod: "typed",
        canSealAgain: false,
        status: signed.state,
        hasSignedPdf: signed.state === "completed",
      });
      const kinds = detail.timeline.map((e) => e.kind);
      expect(kinds.slice(0, 3)).toEqual(["created", "opened", "webhook_delivery"]);
      expect(kinds).toContain("signed");
      if (signed.state === "completed") expect(kinds).toContain("sealed");
      const delivery = detail.timeline.find((e) => e.kind === "webhook_delivery")!;
      expect(delivery.delivery).toMatchObject({
        eventType: "signature.opened",
        url: `${files.origin}/hook`,
        status: expect.stringMatching(/pending|delivered|failed/),
      });
      expect(detail.timeline.find((e) => e.kind === "created")).toMatchObject({ actorType: "user" });
      const text = JSON.stringify(detail);
      const [row] = await api.services.db
        .select()
        .from(signatureRequests)
        .where(eq(signatureRequests.id, created.signature_id));
      expect(text).not.toContain(row!.tokenHash);
      expect(text).not.toContain(row!.tokenEnc);
      expect(text).not.toContain(token);
      expect(detail).not.toHaveProperty("signingUrl");
      // The timeline's times are in order.
      const times = detail.timeline.map((e) => Date.parse(e.at));
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    } finally {
      await api.services.db.update(organizations).set({ webhookUrls: [] }).where(eq(organizations.id, org.orgId));
    }
  });

  it("hands the signing link out only through revealLink, to every staff role, and audits each view with its viewer", async () => {
    const request = await requestSignature(api, org, docA, "P-reveal", "station-5");
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "desk@reveal.test",
      password: "desk-password-123",
      role: "staff",
    });
    const desk = api.trpc({ cookie: await logInCookie(api, "desk@reveal.test", "desk-password-123") });
    const [deskUser] = await api.services.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, "desk@reveal.test"));

    // Neither the list nor the detail carries the link.
    const listed = await desk.signatures.list.query({ patientId: "P-reveal" });
    const detail = await desk.signatures.detail.query({ id: request.id });
    expect(JSON.stringify([listed, detail])).not.toContain(request.token);
    expect(
      await api.services.db
        .select()
        .from(auditLog)
        .where(
          sql`${auditLog.action} = 'signature.link_viewed' and ${auditLog.metadata}->>'signatureId' = ${request.id}`,
        ),
    ).toHaveLength(0);

    expect(await desk.signatures.revealLink.mutate({ id: request.id })).toEqual({ signingUrl: request.link });
    const views = await api.services.db
      .select()
      .from(auditLog)
      .where(
        sql`${auditLog.action} = 'signature.link_viewed' and ${auditLog.metadata}->>'signatureId' = ${request.id}`,
      );
    expect(views).toEqual([
      expect.objectContaining({
        actorType: "user",
        actorId: deskUser!.id,
        metadata: { signatureId: request.id, replaced: false },
      }),
    ]);
    expect((await desk.signatures.detail.query({ id: request.id })).timeline.map((e) => e.kind)).toEqual([
      "created",
      "link_viewed",
    ]);

    // Another organization's staff and strangers get nothing, and nothing is recorded.
    await expect(otherStaff.signatures.revealLink.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(api.trpc({}).signatures.revealLink.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
    // A2 called with a staff session hands out links too: each one is recorded the same way.
    const open = await desk.signatures.listOpen.query({ patient_id: "P-reveal" });
    expect(open.map((l) => l.signing_link)).toEqual([request.link]);
    // An API token (the integration A2 is for) is not a person viewing a link: nothing extra.
    await api.trpc({ bearer: org.token }).signatures.listOpen.query({ patient_id: "P-reveal" });
    expect(
      await api.services.db
        .select()
        .from(auditLog)
        .where(
          sql`${auditLog.action} = 'signature.link_viewed' and ${auditLog.metadata}->>'signatureId' = ${request.id}`,
        ),
    ).toHaveLength(2);
  });

  it("records a decline with its reason", async () => {
    const request = await requestSignature(api, org, docA, "P-decline", "station-3");
    const signing = api.trpc({}).signing;
    const { sessionToken } = await signing.open.mutate({ token: request.token });
    await signing.decline.mutate({ sessionToken: sessionToken!, reason: "möchte erst sprechen" });
    const detail = await staff.signatures.detail.query({ id: request.id });
    expect(detail).toMatchObject({
      status: "declined",
      declineReason: "möchte erst sprechen",
      declinedAt: expect.any(String),
    });
    expect(detail.timeline.map((e) => e.kind)).toEqual(["created", "opened", "declined"]);
    expect(detail.timeline[2]).toMatchObject({ actorType: "signer", detail: "möchte erst sprechen" });
  });

  it("changes visibility, expiry and link (audited, on the timeline) and refuses what cannot change", async () => {
    const request = await requestSignature(api, org, docA, "P-update", "station-4");
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const updated = await staff.signatures.update.mutate({
      id: request.id,
      visibility: "draft",
      expiresAt,
      assignmentUrl: "https://his.example.org/sign/42",
    });
    expect(updated).toMatchObject({ visibility: "draft", expiresAt, assignmentUrl: "https://his.example.org/sign/42" });
    expect(await staff.signatures.revealLink.mutate({ id: request.id })).toEqual({
      signingUrl: "https://his.example.org/sign/42",
    });
    expect(updated.timeline.map((e) => e.kind)).toEqual([
      "created",
      "visibility_changed",
      "expiry_changed",
      "link_replaced",
    ]);
    expect((await staff.signatures.detail.query({ id: request.id })).timeline.map((e) => e.kind).at(-1)).toBe(
      "link_viewed",
    );
    expect(updated.timeline[1]).toMatchObject({ actorType: "user", detail: "active → draft" });

    // Clearing the link brings the signing link back; only what is sent changes.
    const cleared = await staff.signatures.update.mutate({ id: request.id, assignmentUrl: null });
    expect(cleared).toMatchObject({ visibility: "draft", expiresAt, assignmentUrl: null });
    expect(await staff.signatures.revealLink.mutate({ id: request.id })).toEqual({ signingUrl: request.link });
    const entries = await api.services.db
      .select()
      .from(auditLog)
      .where(
        sql`${auditLog.metadata}->>'signatureId' = ${request.id} and ${auditLog.action} = 'signature.assignment_updated'`,
      );
    expect(entries.map((e) => e.metadata)).toEqual([
      expect.objectContaining({
        visibility: { from: "active", to: "draft" },
        expiresAt: expect.objectContaining({ to: expiresAt }),
        assignmentUrl: "https://his.example.org/sign/42",
      }),
      { signatureId: request.id, assignmentUrl: null },
    ]);

    const refuse = (input: Record<string, unknown>, status: number) =>
      expect(staff.signatures.update.mutate({ id: request.id, ...input } as never)).rejects.toMatchObject({
        data: { httpStatus: status },
      });
    await refuse({ expiresAt: new Date(Date.now() - 60_000).toISOString() }, 400);
    await refuse({ expiresAt: "next week" }, 400);
    await refuse({ assignmentUrl: "javascript:alert(1)" }, 400);
    await refuse({}, 400);

    // A closed request keeps its expiry: 409 with the reason.
    const done = await insertRequest(org, docA, { status: "completed", completedAt: new Date() });
    await expect(staff.signatures.update.mutate({ id: done, expiresAt })).rejects.toMatchObject({
      message: "the request is completed; its expiry can no longer change",
      data: { httpStatus: 409, details: { field: "expiresAt", reason: "request_closed" } },
    });
    // Another organization's request is not found, and nothing changes.
    await expect(otherStaff.signatures.update.mutate({ id: request.id, visibility: "active" })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(otherStaff.signatures.detail.query({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });

  it("shows a seal job that gave up as failed, with seal again allowed and on the timeline", async () => {
    const id = await insertRequest(org, docA, {
      status: "sealing",
      signedAt: new Date(),
      sealError: "the stored PDF is missing",
    });
    expect((await staff.signatures.detail.query({ id })).status).toBe("sealing");
    await markSealGaveUp(sealContext(org.ctx, id), { id, error: "the stored PDF is missing" });
    const detail = await staff.signatures.detail.query({ id });
    expect(detail).toMatchObject({ status: "failed", canSealAgain: true, sealError: "the stored PDF is missing" });
    expect(detail.timeline.map((e) => e.kind)).toEqual(["seal_failed"]);
    expect(await allIds({ status: "failed" })).toContain(id);
    await staff.signatures.sealAgain.mutate({ id });
    const again = await staff.signatures.detail.query({ id });
    expect(again).toMatchObject({ status: "sealing", canSealAgain: false });
    expect(again.timeline.map((e) => e.kind)).toEqual(["seal_failed", "seal_again"]);
    expect(await allIds({ status: "sealing" })).toContain(id);
  });
});

describe("signatures.brandings and signatures.institutions", () => {
  it("lists institutions with their own branding and the known institution ids by prefix, own organization only", async () => {
    await staff.signatures.createDesign.mutate({
      institution_id: "brand-a",
      logo_url: "https://cdn.example.org/a.png",
      design_parameters: { primaryColor: "#112233", font: "Inter" },
    });
    await staff.signatures.createDesign.mutate({
      institution_id: "brand-b",
      design_parameters: { accentColor: "#ABCDEF" },
    });
    await otherStaff.signatures.createDesign.mutate({ institution_id: "brand-z", design_parameters: {} });
    await ensureInstitution(org.ctx, "brand-c");

    const first = await staff.signatures.brandings.query({ limit: 1 });
    expect(first.items).toEqual([
      {
        institutionId: "brand-b",
        logoUrl: null,
        primaryColor: null,
        accentColor: "#abcdef",
        font: null,
        updatedAt: expect.any(String),
      },
    ]);
    const second = await staff.signatures.brandings.query({ limit: 1, cursor: first.nextCursor! });
    expect(second.items[0]).toMatchObject({
      institutionId: "brand-a",
      logoUrl: "https://cdn.example.org/a.png",
      primaryColor: "#112233",
      font: "Inter",
    });
    const everything = await staff.signatures.brandings.query({ limit: 200 });
    expect(everything.items.map((i) => i.institutionId)).not.toContain("brand-z");

    expect(await staff.signatures.institutions.query({ prefix: "brand-" })).toEqual({
      items: [
        { institutionId: "brand-a", hasBranding: true },
        { institutionId: "brand-b", hasBranding: true },
        { institutionId: "brand-c", hasBranding: false },
      ],
      hasMore: false,
    });
    expect(await staff.signatures.institutions.query({ prefix: "brand-", limit: 2 })).toMatchObject({
      hasMore: true,
      items: [{ institutionId: "brand-a" }, { institutionId: "brand-b" }],
    });
    expect((await otherStaff.signatures.institutions.query({ prefix: "brand" })).items).toEqual([
      { institutionId: "brand-z", hasBranding: true },
    ]);
    await expect(staff.signatures.brandings.query({ cursor: "bad!" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });
});
