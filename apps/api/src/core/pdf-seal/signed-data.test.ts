import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPki, type TestPki } from "../../testing/pki";
import { CmsError, verifySignedData } from "./cms";
import { checkSignedData } from "./cms-verify";

let pki: TestPki;
beforeAll(async () => {
  pki = await startTestPki();
});
afterAll(async () => {
  await pki?.close();
});

/** SignedData over `data` by OpenSSL with the test PKI's seal certificate, content attached. */
function openSslSignedData(data: string, signerId: "issuerAndSerialNumber" | "subjectKeyIdentifier"): Buffer {
  const input = join(pki.dir, `cms-${signerId}.txt`);
  writeFileSync(input, data);
  return execFileSync(
    "openssl",
    [
      "cms",
      "-sign",
      "-binary",
      "-nodetach",
      "-md",
      "sha256",
      ...(signerId === "subjectKeyIdentifier" ? ["-keyid"] : []),
      "-signer",
      join(pki.dir, "seal.crt"),
      "-inkey",
      join(pki.dir, "seal.key"),
      "-in",
      input,
      "-outform",
      "DER",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** The same bytes with the first occurrence of `from` (in the encapsulated content) replaced. */
const tampered = (cms: Buffer, from: string, to: string) => {
  const copy = Buffer.from(cms);
  copy.write(to, copy.indexOf(from), "latin1");
  return copy;
};

describe("SignedData from another implementation (OpenSSL), both signer ids", () => {
  for (const signerId of ["issuerAndSerialNumber", "subjectKeyIdentifier"] as const) {
    it(`names its signer by ${signerId}: the seal's check and /verify's both find and verify it`, () => {
      const cms = openSslSignedData("consent of Erika Mustermann", signerId);
      const verified = verifySignedData(cms);
      expect(verified.content.toString()).toBe("consent of Erika Mustermann");
      expect(verified.signer.subject).toContain("CN=Klinik Test seal");
      const checked = checkSignedData(cms, null);
      expect(checked).toMatchObject({ digestMatches: true, signatureValid: true });
      expect(checked.signer?.subject).toContain("CN=Klinik Test seal");

      const changed = tampered(cms, "Erika", "Erica");
      expect(() => verifySignedData(changed)).toThrow(CmsError);
      expect(() => verifySignedData(changed)).toThrow(/message digest/);
      expect(checkSignedData(changed, null)).toMatchObject({ digestMatches: false });
    });
  }
});
