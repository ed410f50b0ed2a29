/**
 * The typed client (`@clinsign/client`, generated from the OpenAPI document) against a running
 * service, as a hospital's TypeScript team would use it: one flow per area, and a webhook the
 * service sends checked with the client's `verifyWebhook`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClinSignClient, verifyWebhook, WebhookVerificationError } from "@clinsign/client";
import { rotateWebhookSecret, updateOrganizationSettings } from "../core/organizations/organizations";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { makePdf, startFileServer, type FileServer } from "../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let receiver: Receiver;
let org: TestOrg;
let secret: string;

beforeAll(async () => {
  files = await startFileServer();
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `${files.hostPort},127.0.0.1:${receiver.port}` });
  org = await api.createOrg("Klinik Client");
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/hook`] });
  ({ secret } = await rotateWebhookSecret(org.ctx));
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  await receiver?.close();
});

describe("@clinsign/client against the running service", { timeout: 60_000 }, () => {
  it("area A: registers a document, requests a signature and finds the open link", async () => {
    const client = createClinSignClient({ baseUrl: api.baseUrl, token: org.token });
    files.set("/aufklaerung.pdf", await makePdf());
    const document = await client.POST("/documents", {
      body: {
        document_name: "Aufklärung OP",
        account_name: "chirurgie",
        signingfield_koordinates: { page: 1, x: 50, y: 600, width: 200, height: 60 },
        document_bloburl: `${files.origin}/aufklaerung.pdf`,
      },
    });
    expect(document.response.status).toBe(201);
    const documentId = document.data!.document_id;
    const request = await client.POST("/signature-requests", {
      body: {
        patient_id: "P-42",
        document_id: documentId,
        institution_id: "klinik-nord",
        expiration_date: new Date(Date.now() + 3600_000).toISOString(),
        order_by: "dr.house",
      },
    });
    expect(request.response.status).toBe(201);
    const open = await client.GET("/signature-requests", { params: { query: { patient_id: "P-42" } } });
    expect(open.data).toEqual([expect.objectContaining({ document_id: documentId, status: "pending" })]);
    // Errors come typed in the area's envelope.
    const missing = await client.PUT("/documents/{id}", { params: { path: { id: "nope" } }, body: { title: "x" } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe("not_found");
  });

  it("area B: creates a template, an embed session, a draft and a submission; the webhook verifies", async () => {
    const client = createClinSignClient({ baseUrl: api.baseUrl, token: org.token });
    const created = await client.POST("/api/embed/templates", {
      body: {
        title: "Anamnese",
        status: "active",
        schema: { version: 1, fields: [{ id: "f1", type: "text", key: "name", label: "Name", required: true }] },
      },
    });
    expect(created.response.status).toBe(201);
    const identifier = created.data!.template.identifier;
    // The embedded form's calls carry only the sessionId: a client without the token.
    const embedSession = await client.POST("/api/embed/sessions", {
      body: { templateIdentifier: identifier, config: { rnummer: "R-2026-7" } },
    });
    const sessionId = embedSession.data!.sessionId;
    const browser = createClinSignClient({ baseUrl: api.baseUrl });
    const saved = await browser.POST("/api/embed/drafts", {
      body: { sessionId, draftKey: "case-7", values: { name: "Erika" } },
    });
    expect(saved.data).toMatchObject({ ok: true, draftKey: "case-7" });
    const draft = await browser.GET("/api/embed/drafts", { params: { query: { sessionId, draftKey: "case-7" } } });
    expect(draft.data?.draft?.values).toEqual({ name: "Erika" });
    const refused = await browser.POST("/api/embed/submit", { body: { sessionId, values: {} } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.fieldErrors?.[0]?.key).toBe("name");
    receiver.requests.length = 0;
    const submitted = await browser.POST("/api/embed/submit", {
      body: { sessionId, draftKey: "case-7", values: { name: "Erika Muster" } },
    });
    expect(submitted.data).toMatchObject({ ok: true, rnummer: "R-2026-7", webhookDelivered: true });

    const delivery = receiver.requests.find((r) => r.body.includes('"form.submitted"'))!;
    const event = verifyWebhook({ secret, body: delivery.body, headers: delivery.headers });
    expect(event).toMatchObject({ event: "form.submitted", templateIdentifier: identifier });
    if (event.event === "form.submitted") expect(event.data.values).toEqual({ name: "Erika Muster" });
    expect(() => verifyWebhook({ secret: `${secret}x`, body: delivery.body, headers: delivery.headers })).toThrow(
      WebhookVerificationError,
    );
    // token + orgId still work beside Bearer.
    const listed = await browser.GET("/api/embed/templates", {
      params: { query: { token: org.token, orgId: org.orgId } },
    });
    expect(listed.data?.templates.map((t) => t.identifier)).toContain(identifier);
  });
});
