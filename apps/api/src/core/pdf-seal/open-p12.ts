/**
 * Opens an uploaded PKCS#12 with its password: the MAC (the password), the key and its
 * certificate. Runs only in a PDF worker (core/pdf-worker, lane `sealUpload`), under a deadline:
 * node-forge derives keys in JavaScript, so even an accepted iteration count costs seconds.
 * Answers with PEM text (what a worker can send back), or why the file was refused.
 */
import type { SealRefusalReason } from "@clinsign/contracts";
import forge from "node-forge";
import { identityFromP12 } from "./pades";

export type OpenedP12 =
  | { ok: true; /** PKCS#8 PEM. */ key: string; /** PEMs, signing certificate first. */ chain: string[] }
  | { ok: false; reason: SealRefusalReason; field: "file" | "password"; message: string };

const refused = (reason: SealRefusalReason, field: "file" | "password", message: string): OpenedP12 => ({
  ok: false,
  reason,
  field,
  message,
});

/** Every way opening can fail is the uploader's to fix. */
export function openP12(input: { p12: Uint8Array; password: string }): OpenedP12 {
  const p12 = Buffer.from(input.p12.buffer, input.p12.byteOffset, input.p12.byteLength);
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(p12.toString("binary"));
  } catch {
    return refused("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
  }
  try {
    // Checks the MAC (the password) before identityFromP12 looks for the key and certificate.
    forge.pkcs12.pkcs12FromAsn1(asn1, false, input.password);
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/password|MAC could not be verified|decrypt/i.test(message))
      return refused("wrong_password", "password", "the password does not open this file");
    if (/Unknown OID|private key/i.test(message))
      return refused("unsupported_key", "file", "the file's private key is not an RSA key");
    return refused("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
  }
  try {
    const identity = identityFromP12(p12, input.password, false);
    return {
      ok: true,
      key: identity.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      chain: identity.chain.map((certificate) => forge.pki.certificateToPem(certificate)),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/no certificate for its private key/.test(message))
      return refused("key_mismatch", "file", "the private key does not belong to the certificate in the file");
    if (/no \(RSA\) private key/.test(message))
      return refused("no_private_key", "file", "the file holds no private key");
    return refused("unsupported_key", "file", "the file's private key is not an RSA key");
  }
}
