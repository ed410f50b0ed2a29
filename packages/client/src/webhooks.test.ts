import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyServiceSignature, verifyWebhook, WebhookVerificationError } from "./index";

const secret = `whsec_${randomBytes(24).toString("base64")}`;
const body = JSON.stringify({
  event: "form.submitted",
  createdAt: "2026-03-02T09:30:00.000Z",
  organizationId: "3f2b8c1e-5d4a-4b6f-9c7e-1a2b3c4d5e6f",
  templateIdentifier: "anamnese-2026",
  data: {
    rnummer: "R-1",
    phone: null,
    values: { name: "Erika" },
    submissionId: "0b9d6f5e-2c1a-4e3b-8d7f-6a5b4c3d2e1f",
  },
});

/** Headers as the Standard Webhooks reference implementation signs them. */
function signed(at = new Date(), key = secret) {
  const id = "msg_1";
  const signature = new Webhook(key).sign(id, at, body);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

describe("verifyWebhook", () => {
  it("accepts what the reference implementation signs, from Node headers or fetch Headers", () => {
    expect(verifyWebhook({ secret, body, headers: signed() }).event).toBe("form.submitted");
    expect(verifyWebhook({ secret, body: Buffer.from(body), headers: new Headers(signed()) }).event).toBe(
      "form.submitted",
    );
  });

  it("accepts any of several signatures (a secret being rotated)", () => {
    const headers = signed();
    headers["webhook-signature"] = `v1,${randomBytes(32).toString("base64")} ${headers["webhook-signature"]}`;
    expect(verifyWebhook({ secret, body, headers }).data).toBeDefined();
  });

  it("refuses another secret, a changed body, a replayed timestamp and missing headers", () => {
    const other = `whsec_${randomBytes(24).toString("base64")}`;
    expect(() => verifyWebhook({ secret: other, body, headers: signed() })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook({ secret, body: body.replace("Erika", "Max"), headers: signed() })).toThrow(
      "no matching signature",
    );
    const old = new Date(Date.now() - 600_000);
    expect(() => verifyWebhook({ secret, body, headers: signed(old) })).toThrow("too far from now");
    expect(verifyWebhook({ secret, body, headers: signed(old), toleranceSeconds: 900 }).event).toBe("form.submitted");
    expect(() => verifyWebhook({ secret, body, headers: {} })).toThrow("missing webhook headers");
  });

  it("uses a secret in another format as its UTF-8 bytes, as the service does", () => {
    const plain = "our-own-shared-secret";
    // The reference implementation takes raw key bytes as base64 without the prefix.
    const headers = signed(new Date(), Buffer.from(plain, "utf8").toString("base64"));
    expect(verifyWebhook({ secret: plain, body, headers }).event).toBe("form.submitted");
  });
});

describe("verifyServiceSignature", () => {
  it("checks the hex HMAC-SHA256 of the raw body", async () => {
    const { createHmac } = await import("node:crypto");
    const hex = createHmac("sha256", "s3cret").update(body).digest("hex");
    expect(verifyServiceSignature("s3cret", body, hex)).toBe(true);
    expect(verifyServiceSignature("s3cret", `${body} `, hex)).toBe(false);
    expect(verifyServiceSignature("s3cret", body, "00")).toBe(false);
  });
});
