import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, signatureRequests } from "@clinsign/db";
import { pdfText } from "../../testing/pdf-text";
import {
  bearer,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  requestSignature,
  startSignatureApi,
  type SignatureTestApi,
} from "../../testing/signature-fixtures";

/**
 * Issue 35, the server's side of signing offline: the page holds a signature encrypted with a key
 * only `signing.open` gives, sends it when the network returns with the device's time of signing,
 * and a resend of the same action after a lost answer signs nothing twice. The seal tells both times.
 */

let setup: SignatureTestApi;

beforeAll(async () => {
  setup = await startSignatureApi();
});
afterAll(async () => {
  await setup?.close();
});

const signing = () => setup.api.trpc({}).signing;
const drawn = () => ({ kind: "drawn" as const, dataUrl: pngDataUrl(makeSignaturePng()) });

async function newRequest(patientId: string) {
  const documentId = await registerDocument(setup.api, setup.files, setup.org, {
    fields: { page: 1, x: 60, y: 650, width: 240, height: 80 },
  });
  return requestSignature(setup.api, setup.org, documentId, patientId);
}

async function download(id: string, suffix: string): Promise<Buffer> {
  const response = await fetch(`${setup.api.baseUrl}/signature-requests/${id}/${suffix}`, {
    headers: bearer(setup.org),
  });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe("the key a signature is held with on the device", () => {
  it("comes with the opened link only: 32 bytes, the same at every opening, another for another link", async () => {
    const request = await newRequest("P-hold-1");
    const preview = await signing().preview.query({ token: request.token });
    expect(preview?.holdKey ?? null).toBeNull();
    const first = await signing().open.mutate({ token: request.token });
    expect(Buffer.from(first.holdKey!, "base64url")).toHaveLength(32);
    const again = await signing().open.mutate({ token: request.token });
    expect(again.holdKey).toBe(first.holdKey);
    const other = await signing().open.mutate({ token: (await newRequest("P-hold-2")).token });
    expect(other.holdKey).not.toBe(first.holdKey);

    // Once signed, nothing is held any more: the copy's pass comes without a key.
    await signing().sign.mutate({ sessionToken: again.sessionToken!, consent: true, signature: drawn() });
    const signed = await signing().open.mutate({ token: request.token });
    expect(signed.sessionToken).not.toBeNull();
    expect(signed.holdKey).toBeNull();
  });
});

describe("a signature held offline and sent when the network returned", () => {
  it("is recorded once with the device's time beside the arrival, audited, and told in the metadata and on the audit page", async () => {
    const request = await newRequest("P-offline");
    const view = await signing().open.mutate({ token: request.token });
    const signedOnDeviceAt = new Date(Date.now() - 7 * 60_000).toISOString();
    const action = {
      sessionToken: view.sessionToken!,
      consent: true as const,
      signature: drawn(),
      language: "de" as const,
      signedOnDeviceAt,
      actionId: randomUUID(),
    };
    expect(await signing().sign.mutate(action)).toEqual({ state: "completed" });
    // The answer was lost on the way back: the device sends the same action again.
    expect(await signing().sign.mutate(action)).toEqual({ state: "completed" });

    const [row] = await setup.api.services.db
      .select()
      .from(signatureRequests)
      .where(eq(signatureRequests.id, request.id));
    expect(row!.signedOnDeviceAt!.toISOString()).toBe(signedOnDeviceAt);
    expect(row!.signedAt!.getTime()).toBeGreaterThan(Date.parse(signedOnDeviceAt));
    const entries = (
      await setup.api.services.db.select().from(auditLog).where(eq(auditLog.action, "signature.signed"))
    ).filter((entry) => entry.metadata.signatureId === request.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.metadata).toMatchObject({ signedOffline: true, signedOnDeviceAt, actionId: action.actionId });

    const metadata = JSON.parse((await download(request.id, "metadata.json")).toString("utf8"));
    expect(metadata.timestamps.signed_on_device).toBe(signedOnDeviceAt);
    expect(metadata.timestamps.signed).toBe(row!.signedAt!.toISOString());

    // The audit page is in the patient's language: signed offline, the device's time, the arrival.
    const text = (await pdfText(new Uint8Array(await download(request.id, "signed.pdf")))).replace(/\s+/g, " ");
    expect(text).toContain("Offline unterschrieben (UTC)");
    expect(text).toContain(
      `auf dem Gerät um ${signedOnDeviceAt} (nach der Uhr des Geräts); eingegangen um ${row!.signedAt!.toISOString()}`,
    );
  });

  it("a signature made online says nothing of a device time", async () => {
    const request = await newRequest("P-online");
    const view = await signing().open.mutate({ token: request.token });
    await signing().sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() });
    const metadata = JSON.parse((await download(request.id, "metadata.json")).toString("utf8"));
    expect(metadata.timestamps).not.toHaveProperty("signed_on_device");
    const text = await pdfText(new Uint8Array(await download(request.id, "signed.pdf")));
    expect(text).not.toContain("offline");
  });

  it("refuses a device time that is not a date and an action id that is not a UUID, as the client's mistake", async () => {
    const request = await newRequest("P-offline-bad");
    const view = await signing().open.mutate({ token: request.token });
    const base = { sessionToken: view.sessionToken!, consent: true as const, signature: drawn() };
    await expect(signing().sign.mutate({ ...base, signedOnDeviceAt: "yesterday" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(signing().sign.mutate({ ...base, actionId: "1" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });
});
