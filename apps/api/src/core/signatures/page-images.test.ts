import sharp from "sharp";
import { auditLog, documentVersions, eq, organizations, signatureRequests, signingCredentials } from "@clinsign/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageImageKey, pageManifestKey } from "../documents/page-images";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  backdateExpiry,
  bearer,
  makePdf,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort, PAGE_IMAGES: "true" });
  [org, other] = [await api.createOrg("Klinik Nord"), await api.createOrg("Klinik West")];
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const drawPages = () => new JobRunner(api.services, jobHandlers).runDue();

async function openedRequest(pdf?: Buffer, owner = org) {
  const documentId = await registerDocument(api, files, owner, {
    pdf,
    fields: { page: 1, x: 10, y: 10, width: 100, height: 40 },
  });
  const request = await requestSignature(api, owner, documentId);
  return { documentId, request };
}

async function open(token: string) {
  return api.trpc({}).signing.open.mutate({ token });
}

// Drawing pages runs pdf.js and the WebP encoder in worker processes: on a busy 2-core machine
// one document takes tens of seconds, so these tests get more than the default 30 s.
describe("signing page images", { timeout: 120_000 }, () => {
  it("are drawn by a job after A6; until then the view has none (the page shows the PDF)", async () => {
    const { request } = await openedRequest(
      await makePdf([
        [595.28, 841.89],
        [841.89, 595.28],
      ]),
    );
    const before = await open(request.token);
    expect(before.pageImages).toBeNull();

    expect(await drawPages()).toBeGreaterThan(0);
    const view = await open(request.token);
    expect(view.pageImages).toMatchObject({
      widths: [480, 800, 1200],
      pages: [
        { width: 595.28, height: 841.89, rotate: 0, heights: [679, 1131, 1697] },
        { width: 841.89, height: 595.28, rotate: 0, heights: [339, 565, 848] },
      ],
    });
    const texts = await api.trpc({}).signing.pageTexts.query({ sessionToken: view.sessionToken! });
    expect(texts.pages).toEqual(["Test document, page 1", "Test document, page 2"]);
  });

  it("serve each page and width as WebP with a year-long private cache lifetime, and 404 for any other page", async () => {
    const { request } = await openedRequest();
    await drawPages();
    const { pageImages } = await open(request.token);
    const url = pageImages!.url;

    const image = await fetch(`${api.baseUrl}${url}/1-480.webp`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/webp");
    expect(image.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 480, 679]);
    expect((await fetch(`${api.baseUrl}${url}/1-1200.webp`)).status).toBe(200);

    // A page the version does not have, a width that was not drawn, another version's hash.
    expect((await api.request("GET", `${url}/2-480.webp`)).status).toBe(404);
    expect((await api.request("GET", `${url}/1-640.webp`)).status).toBe(404);
    const otherVersion = url.replace(/[0-9a-f]{64}$/, "0".repeat(64));
    expect((await api.request("GET", `${otherVersion}/1-480.webp`)).status).toBe(404);
  });

  it("are scoped to the signing link: a forged or foreign grant is 404, and so is a request no longer open", async () => {
    const mine = await openedRequest();
    const theirs = await openedRequest(undefined, other);
    await drawPages();
    const mineView = await open(mine.request.token);
    const theirsView = await open(theirs.request.token);
    const [, , grant, sha] = mineView.pageImages!.url.split("/");
    const [orgId, signatureRequestId, tag] = grant!.split(".");

    // The other organization's request with this request's tag, and a tampered tag.
    const [, , theirGrant] = theirsView.pageImages!.url.split("/");
    const [theirOrg, theirRequest] = theirGrant!.split(".");
    for (const forged of [
      `${theirOrg}.${theirRequest}.${tag}`,
      `${orgId}.${theirRequest}.${tag}`,
      `${orgId}.${signatureRequestId}.${tag!.slice(0, -2)}AA`,
    ])
      expect((await api.request("GET", `/signing-pages/${forged}/${sha}/1-480.webp`)).status).toBe(404);

    // Signed: the link no longer shows the document, so neither do its images.
    const url = `${mineView.pageImages!.url}/1-480.webp`;
    expect((await api.request("GET", url)).status).toBe(200);
    await api.trpc({}).signing.sign.mutate({
      sessionToken: mineView.sessionToken!,
      consent: true,
      signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
    });
    expect((await api.request("GET", url)).status).toBe(404);
  });

  it("leave a document the renderer cannot read usable: no images, the page keeps the PDF", async () => {
    // pdf-lib reads this one (A6 accepts it), pdf.js draws it: a sanity check that the fallback is a null, not an error.
    const { request } = await openedRequest(await makePdf([[200, 200 * 10]]));
    await drawPages();
    const view = await open(request.token);
    expect(view.state).toBe("ready");
    expect(view.pageImages).toBeNull();
  });

  it("go when their document is deleted (A9)", async () => {
    const documentId = await registerDocument(api, files, org);
    await drawPages();
    const [version] = await api.services.db
      .select()
      .from(documentVersions)
      .where(eq(documentVersions.documentId, documentId));
    if (!version) throw new Error("no version");
    expect(await api.services.storage.get(pageManifestKey(version.storageKey))).not.toBeNull();
    const deleted = await api.request("DELETE", `/documents/${documentId}`, { headers: bearer(org) });
    expect(deleted.body).toMatchObject({ deleted: true });
    expect(await api.services.storage.get(pageManifestKey(version.storageKey))).toBeNull();
    expect(await api.services.storage.get(pageImageKey(version.storageKey, 1, 480))).toBeNull();
  });
});

describe("signing.preview: the document in the signing page's first HTML", { timeout: 120_000 }, () => {
  const preview = (token: string) => api.trpc({}).signing.preview.query({ token });
  const requestRow = async (id: string) =>
    (await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id)))[0]!;
  const passes = async (id: string) =>
    (await api.services.db.select().from(signingCredentials).where(eq(signingCredentials.signatureRequestId, id)))
      .length;
  const auditActions = async () =>
    (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, org.orgId))).map((e) => e.action);

  it("shows what opening shows, without opening: no pass, still pending, nothing audited, the images served", async () => {
    const { request } = await openedRequest();
    await drawPages();
    const auditBefore = await auditActions();

    const seen = await preview(request.token);
    expect(seen).toMatchObject({ state: "ready", sessionToken: null, sessionExpiresAt: null, pageCount: 1 });
    expect((await requestRow(request.id)).status).toBe("pending");
    expect(await passes(request.id)).toBe(0);
    expect(await auditActions()).toEqual(auditBefore);
    // Page 1's image loads before the page has opened the link.
    expect((await api.request("GET", `${seen!.pageImages!.url}/1-480.webp`)).status).toBe(200);

    const opened = await open(request.token);
    expect((await requestRow(request.id)).status).toBe("opened");
    // The same view but for what only opening gives: the pass, and the key to hold a signature
    // offline with how long it may wait.
    const { sessionToken, sessionExpiresAt, holdKey, holdUntil, ...openedView } = opened;
    expect(sessionToken).toBeTruthy();
    expect(sessionExpiresAt).toBeTruthy();
    expect(holdKey).toBeTruthy();
    expect(holdUntil).toBe(opened.expiresAt);
    expect(seen!.holdKey).toBeNull();
    expect(seen!.holdUntil).toBeNull();
    const onlyOpening = {
      sessionToken: undefined,
      sessionExpiresAt: undefined,
      holdKey: undefined,
      holdUntil: undefined,
    };
    expect({ ...seen, ...onlyOpening }).toEqual({ ...openedView, ...onlyOpening });
  });

  it("is null for everything but a link ready for signing: unknown, expired, signed, A4 verification required", async () => {
    expect(await preview("x".repeat(43))).toBeNull();

    const expired = await openedRequest();
    await backdateExpiry(api, expired.request.id);
    expect(await preview(expired.request.token)).toBeNull();
    // Reading it did not mark it expired either: that is opening's to do, with its audit entry.
    expect((await requestRow(expired.request.id)).status).toBe("pending");

    const signed = await openedRequest();
    const view = await open(signed.request.token);
    await api.trpc({}).signing.sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
    });
    expect(await preview(signed.request.token)).toBeNull();

    const guarded = await openedRequest();
    await api.services.db
      .update(organizations)
      .set({ requireSessionVerification: true })
      .where(eq(organizations.id, org.orgId));
    try {
      expect(await preview(guarded.request.token)).toBeNull();
    } finally {
      await api.services.db
        .update(organizations)
        .set({ requireSessionVerification: false })
        .where(eq(organizations.id, org.orgId));
    }
  });

  it("issue 19: picks the document opening will pin for the page's language; its images load before the pin", async () => {
    const fields = { page: 1, x: 10, y: 10, width: 100, height: 40 };
    const de = await registerDocument(api, files, org, { fields, name: "Einwilligung" });
    const tr = await registerDocument(api, files, org, {
      fields,
      name: "Onam",
      pdf: await makePdf([
        [595.28, 841.89],
        [595.28, 841.89],
      ]),
    });
    const created = await api.request("POST", "/signature-requests", {
      headers: bearer(org),
      body: {
        patient_id: "P-preview-lang",
        document_id: de,
        institution_id: "clinic-a",
        expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
        order_by: "dr.house",
        documents_by_language: { tr },
      },
    });
    expect(created.status).toBe(201);
    const token = (created.body.signing_link as string).split("/").pop()!;
    await drawPages();

    const german = await api.trpc({}).signing.preview.query({ token, language: "de" });
    const turkish = await api.trpc({}).signing.preview.query({ token, language: "tr" });
    expect(german).toMatchObject({ documentTitle: "Einwilligung", pageCount: 1 });
    expect(turkish).toMatchObject({ documentTitle: "Onam", pageCount: 2 });
    // Before the pin, each preview's images are served (the page may be in either language).
    expect((await api.request("GET", `${turkish!.pageImages!.url}/2-480.webp`)).status).toBe(200);
    expect((await api.request("GET", `${german!.pageImages!.url}/1-480.webp`)).status).toBe(200);

    const opened = await api.trpc({}).signing.open.mutate({ token, language: "tr" });
    const { sessionToken: _s, sessionExpiresAt: _e, holdKey: _k, holdUntil: _u, ...openedView } = opened;
    const onlyOpening = {
      sessionToken: undefined,
      sessionExpiresAt: undefined,
      holdKey: undefined,
      holdUntil: undefined,
    };
    expect({ ...turkish, ...onlyOpening }).toEqual({ ...openedView, ...onlyOpening });
    // Pinned: a preview in German now shows the Turkish document, and only its images are served.
    expect(await api.trpc({}).signing.preview.query({ token, language: "de" })).toMatchObject({
      documentTitle: "Onam",
      pageCount: 2,
    });
    expect((await api.request("GET", `${german!.pageImages!.url}/1-480.webp`)).status).toBe(404);
    expect((await api.request("GET", `${turkish!.pageImages!.url}/1-480.webp`)).status).toBe(200);
  });
});
