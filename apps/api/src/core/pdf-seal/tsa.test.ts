import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPki, type TestPki, type TsaMode } from "../../testing/pki";
import { createHash } from "node:crypto";
import { der, int, seq, toBuffer } from "./cms";
import { isDefinite, readDer, type Der } from "./der";
import { checkTimestampReply, requestTimestamp, TimestampError, timestampRequest } from "./tsa";

let pki: TestPki;

beforeAll(async () => {
  pki = await startTestPki();
});
afterAll(async () => {
  await pki?.close();
});

const config = () => ({
  tsa: { url: pki.tsaUrl, username: undefined, password: undefined, timeoutMs: 1000 },
  outboundAllowHosts: [pki.hostPort],
});

describe("requestTimestamp", () => {
  it("gets a token over the data's SHA-256 that openssl ts -verify accepts against the CA", async () => {
    const data = Buffer.from("the signature value");
    const before = Date.now();
    const stamp = await requestTimestamp(config(), data);
    expect(stamp.genTime.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(stamp.genTime.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(stamp.tsa).toContain("ClinSign Test TSA");
    expect(stamp.policy).toBe("1.3.6.1.4.1.99999.1");
    expect(pki.verifyTimestamp(stamp.token, data)).toContain("Verification: OK");
  });

  it("refuses the TSA's private address unless OUTBOUND_ALLOW_HOSTS lists it", async () => {
    await expect(requestTimestamp({ ...config(), outboundAllowHosts: [] }, Buffer.from("x"))).rejects.toMatchObject({
      reason: "unreachable",
      message: expect.stringContaining("blocked_address"),
    });
  });

  const failures: [TsaMode, string][] = [
    ["down", "unreachable"],
    ["slow", "timeout"],
    ["error", "http_status"],
    ["garbage", "malformed"],
    ["wrong-imprint", "imprint_mismatch"],
    ["wrong-nonce", "nonce_mismatch"],
  ];
  for (const [mode, reason] of failures) {
    it(`throws ${reason} when the TSA is ${mode}, never a token`, async () => {
      pki.tsaMode = mode;
      pki.slowMs = 1600;
      try {
        const error = await requestTimestamp(config(), Buffer.from(`data ${mode}`)).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TimestampError);
        expect(error).toMatchObject({ reason });
      } finally {
        pki.tsaMode = "ok";
      }
    });
  }

  it("refuses a token whose signature does not verify, and a refusal status, with their reasons", async () => {
    const stamp = await requestTimestamp(config(), Buffer.from("to be tampered"));
    // TimeStampResp ::= SEQUENCE { status PKIStatusInfo (granted), timeStampToken }
    const granted = (token: Buffer) => {
      const body = Buffer.concat([toBuffer(der(seq([int(0)]))), token]);
      return Buffer.concat([Buffer.from([0x30, 0x82, body.length >> 8, body.length & 0xff]), body]);
    };
    const tampered = Buffer.from(stamp.token);
    tampered[tampered.length - 1] = tampered.at(-1)! ^ 1;
    const digest = Buffer.alloc(32);
    const nonce = Buffer.from([0x40]);
    expect(() => checkTimestampReply(granted(stamp.token), digest, nonce)).toThrow(
      expect.objectContaining({ reason: "imprint_mismatch" }),
    );
    expect(() => checkTimestampReply(granted(tampered), digest, nonce)).toThrow(
      expect.objectContaining({ reason: "bad_signature" }),
    );
    const refusal = toBuffer(der(seq([seq([int(2)])])));
    expect(() => checkTimestampReply(refusal, digest, nonce)).toThrow(expect.objectContaining({ reason: "rejected" }));
    const trailing = Buffer.concat([granted(stamp.token), Buffer.from([0])]);
    expect(() => checkTimestampReply(trailing, digest, nonce)).toThrow(
      expect.objectContaining({ reason: "malformed" }),
    );
  });

  it("accepts a reply in BER (indefinite lengths, as some Java TSAs send) and keeps its token as DER", async () => {
    const digest = createHash("sha256").update("ber").digest();
    const nonce = Buffer.from([0x41, 0x02, 0x03, 0x04]);
    const response = await fetch(pki.tsaUrl, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query" },
      body: timestampRequest(digest, nonce),
    });
    const reply = Buffer.from(await response.arrayBuffer());
    const [status, token] = readDer(reply).children;
    const indefinite = (node: Der, ...inner: Buffer[]) =>
      Buffer.concat([Buffer.from([node.tag, 0x80]), ...inner, Buffer.from([0, 0])]);
    const berReply = indefinite(readDer(reply), status!.raw, indefinite(token!, token!.content));
    expect(isDefinite(readDer(berReply))).toBe(false);
    const stamp = checkTimestampReply(berReply, digest, nonce);
    expect(stamp.token.equals(token!.raw)).toBe(true);
    expect(pki.verifyTimestamp(stamp.token, Buffer.from("ber"))).toContain("Verification: OK");
  });
});
