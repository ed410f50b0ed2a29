import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPki, type TestPki } from "../../testing/pki";
import { collectValidationData, RevocationError } from "./revocation";

let pki: TestPki;
let ca: X509Certificate;
let seal: X509Certificate;
let tsa: X509Certificate;

beforeAll(async () => {
  pki = await startTestPki();
  ca = new X509Certificate(readFileSync(pki.caFile));
  seal = new X509Certificate(readFileSync(join(pki.dir, "seal.crt")));
  tsa = new X509Certificate(readFileSync(pki.tsaCertFile));
});
afterAll(async () => {
  await pki?.close();
});

const config = () => ({ outboundAllowHosts: [pki.hostPort] });
const revocationAsks = () => pki.requests.filter((r) => r.path === "/ocsp" || r.path === "/ca.crl");

/** Resolves once `done()` holds; rejects after `ms` of asking (the thing it waits for never happened). */
async function eventually(done: () => boolean, what: string, ms = 5000): Promise<void> {
  for (const until = Date.now() + ms; !done(); await new Promise((resolve) => setTimeout(resolve, 10)))
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
}

describe("collectValidationData", () => {
  it("asks the seal's OCSP responder and the TSA's CRL server at once, and checks both answers", async () => {
    let release!: () => void;
    pki.holdRevocation = new Promise<void>((resolve) => (release = resolve));
    const before = revocationAsks().length;
    try {
      const collecting = collectValidationData(config(), [seal, tsa], [seal, tsa, ca]);
      // Neither answers until both were asked: one after the other would never get here.
      await eventually(() => revocationAsks().length === before + 2, "both asked while neither had answered");
      release();
      const data = await collecting;
      expect(
        revocationAsks()
          .slice(before)
          .map((r) => r.path)
          .sort(),
      ).toEqual(["/ca.crl", "/ocsp"]);
      expect(data.ocsps).toHaveLength(1);
      expect(data.crls).toHaveLength(1);
      expect(data.certificates.map((c) => new X509Certificate(c).subject)).toEqual([
        seal.subject,
        ca.subject,
        tsa.subject,
      ]);
    } finally {
      pki.holdRevocation = null;
    }
  });

  it("fails closed when one of the two cannot answer, naming it", async () => {
    pki.ocspDown = true;
    try {
      await expect(collectValidationData(config(), [seal, tsa], [seal, tsa, ca])).rejects.toThrow(RevocationError);
      await expect(collectValidationData(config(), [seal, tsa], [seal, tsa, ca])).rejects.toThrow(/\/ocsp/);
    } finally {
      pki.ocspDown = false;
    }
  });
});
