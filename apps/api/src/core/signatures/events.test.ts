import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { startReceiver, type Receiver } from "../../testing/receiver";
import {
  backdateExpiry,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { rotateWebhookSecret, updateOrganizationSettings } from "../organizations/organizations";

let api: TestApi;
let files: FileServer;
let receiver: Receiver;
let org: TestOrg;
let secret: string;

beforeAll(async () => {
  files = await startFileServer();
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `${files.hostPort},127.0.0.1:${receiver.port}` });
  org = await api.createOrg();
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/his`] });
  secret = (await rotateWebhookSecret(org.ctx)).secret;
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  await receiver?.close();
});

const deliverAll = () => new JobRunner(api.services, jobHandlers).runDue();
const events = () =>
  receiver.requests.map((r) => {
    // Every delivery verifies against the organization's secret, both ways.
    expect(r.headers["x-service-signature"]).toBe(createHmac("sha256", secret).update(r.body).digest("hex"));
    return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as {
      event: string;
      data: Record<string, unknown>;
    };
  });

describe("signature.* webhooks", () => {
  it("tells the organization's systems when a request is opened, completed, declined or expires", async () => {
    const documentId = await registerDocument(api, files, org);
    const signed = await requestSignature(api, org, documentId, "P-77");
    const view = await api.trpc({}).signing.open.mutate({ token: signed.token });
    await api.trpc({}).signing.sign.mutate({
      sessionToken: view.sessionToken!,
      consent: true,
      signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
    });
    const declined = await requestSignature(api, org, documentId, "P-78");
    const declinedView = await api.trpc({}).signing.open.mutate({ token: declined.token });
    await api.trpc({}).signing.decline.mutate({
      sessionToken: declinedView.sessionToken!,
      reason: "Möchte erst mit dem Arzt sprechen",
    });
    const expired = await requestSignature(api, org, documentId, "P-79");
    await backdateExpiry(api, expired.id);
    expect((await api.trpc({}).signing.open.mutate({ token: expired.token })).state).toBe("expired");

    await deliverAll();
    const received = events();
    const byEvent = (event: string, id: string) =>
      received.find((e) => e.event === event && e.data.signature_id === id);
    expect(byEvent("signature.opened", signed.id)?.data).toMatchObject({ document_id: documentId, patient_id: "P-77" });
    expect(byEvent("signature.completed", signed.id)?.data).toMatchObject({
      patient_id: "P-77",
      signed_pdf_url: expect.stringContaining(`/signature-requests/${signed.id}/signed.pdf`),
      metadata_json_url: expect.stringContaining(`/signature-requests/${signed.id}/metadata.json`),
    });
    expect(byEvent("signature.declined", declined.id)?.data).toMatchObject({
      reason: "Möchte erst mit dem Arzt sprechen",
    });
    expect(byEvent("signature.expired", expired.id)?.data).toMatchObject({ patient_id: "P-79" });
    expect(receiver.requests.every((r) => r.path === "/his")).toBe(true);
  });
});
