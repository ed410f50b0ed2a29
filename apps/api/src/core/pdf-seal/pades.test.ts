import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { afterAll, describe, expect, it } from "vitest";
import { cadesDetachedSignature, devSigningDir, loadSigningIdentity, type SigningIdentity } from "./pades";

const work = mkdtempSync(join(tmpdir(), "clinsign-pades-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh development certificate in its own data directory: its P12 file and password. */
function makeP12(name: string) {
  const dataDir = join(work, name);
  loadSigningIdentity({ signingP12: undefined, dataDir });
  const dir = devSigningDir(dataDir);
  return {
    file: join(dir, "dev-signing.p12"),
    password: readFileSync(join(dir, "dev-signing.password"), "utf8").trim(),
  };
}

const certificateDer = (identity: SigningIdentity) =>
  Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(identity.certificate)).getBytes(), "binary");

describe("loadSigningIdentity", () => {
  it("parses a P12 file once, and again when the file is replaced by another certificate", () => {
    const first = makeP12("first");
    const second = makeP12("second");
    const configured = join(work, "seal.p12");
    copyFileSync(first.file, configured);
    const a = loadSigningIdentity({ signingP12: { file: configured, password: first.password }, dataDir: work });
    expect(loadSigningIdentity({ signingP12: { file: configured, password: first.password }, dataDir: work })).toBe(a);

    // A renewed certificate put in place of the file: the next seal uses it, without a restart.
    copyFileSync(second.file, configured);
    const b = loadSigningIdentity({ signingP12: { file: configured, password: second.password }, dataDir: work });
    expect(b).not.toBe(a);
    expect(b.fingerprint).not.toBe(a.fingerprint);
    expect(b.fingerprint).toBe(
      loadSigningIdentity({ signingP12: { file: second.file, password: second.password }, dataDir: work }).fingerprint,
    );
  });

  it("fails clearly when the configured file is gone, instead of sealing with a stale certificate", () => {
    const { file, password } = makeP12("gone");
    const configured = join(work, "gone.p12");
    copyFileSync(file, configured);
    loadSigningIdentity({ signingP12: { file: configured, password }, dataDir: work });
    rmSync(configured);
    expect(() => loadSigningIdentity({ signingP12: { file: configured, password }, dataDir: work })).toThrow(/ENOENT/);
  });
});

describe("cadesDetachedSignature", () => {
  it("embeds and names the certificate of the identity it is given, whichever was used before", () => {
    const a = loadSigningIdentity({ signingP12: undefined, dataDir: join(work, "cms-a") });
    const b = loadSigningIdentity({ signingP12: undefined, dataDir: join(work, "cms-b") });
    const content = Buffer.from("%PDF-1.7 the signed byte ranges");
    for (const [identity, other] of [
      [a, b],
      [b, a],
      [a, b],
    ] as const) {
      const cms = cadesDetachedSignature(content, identity);
      expect(cms.includes(certificateDer(identity))).toBe(true);
      expect(cms.includes(certificateDer(other))).toBe(false);
      // The signed attributes verify with this identity's public key.
      const signed = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(cms.toString("binary"))) as unknown as {
        rawCapture: { signature: string; authenticatedAttributes: forge.asn1.Asn1[] };
      };
      const attributes = forge.asn1.create(
        forge.asn1.Class.UNIVERSAL,
        forge.asn1.Type.SET,
        true,
        signed.rawCapture.authenticatedAttributes,
      );
      const digest = forge.md.sha256.create().update(forge.asn1.toDer(attributes).getBytes());
      expect(
        (identity.certificate.publicKey as forge.pki.rsa.PublicKey).verify(
          digest.digest().getBytes(),
          signed.rawCapture.signature,
        ),
      ).toBe(true);
    }
  });
});
