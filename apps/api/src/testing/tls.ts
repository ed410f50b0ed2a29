import { writeFileSync } from "node:fs";
import { join } from "node:path";
import forge from "node-forge";

/** A throwaway self-signed certificate for 127.0.0.1, written as PEM files into `dir`. */
export function writeSelfSignedCertificate(dir: string): { certFile: string; keyFile: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = "01";
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  const attrs = [{ name: "commonName", value: "127.0.0.1" }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  writeFileSync(certFile, forge.pki.certificateToPem(cert));
  writeFileSync(keyFile, forge.pki.privateKeyToPem(keys.privateKey));
  return { certFile, keyFile };
}
