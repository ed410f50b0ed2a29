/**
 * Reading CMS SignedData (RFC 5652) as RFC 3161 time-stamp tokens and OCSP responses carry them:
 * find the signer's certificate, check the signed attributes' message digest and the signature.
 * node-forge parses the ASN.1 (its pkcs7 module cannot verify), node:crypto's X509Certificate the
 * certificates (any key type) and verifies.
 */
// forge's fromDer options, which its published types lack (a declaration only: nothing runs).
import type {} from "./node-forge-asn1";
import { createHash, verify as cryptoVerify, X509Certificate } from "node:crypto";
import forge from "node-forge";
import { childrenOf, oidOf, readDer, readWholeDer, TAG, type Der } from "./der";
import {
  attributeValue,
  certificateParts,
  certificatesNamedBy,
  CMS_OID,
  DIGEST_NAMES,
  extensionValueOf,
  readSignedData,
  signedAttributesBytes,
  type SignedDataParts,
} from "./signed-data";

const { asn1 } = forge;
export type Asn1 = forge.asn1.Asn1;
export const U = asn1.Class.UNIVERSAL;
export const T = asn1.Type;
const CTX = asn1.Class.CONTEXT_SPECIFIC;

export const OID = {
  ...CMS_OID,
  data: "1.2.840.113549.1.7.1",
  timeStamping: "1.3.6.1.5.5.7.3.8",
  ocspBasic: "1.3.6.1.5.5.7.48.1.1",
  ocspNonce: "1.3.6.1.5.5.7.48.1.2",
} as const;

/** Signature algorithm OIDs whose hash is named by the OID itself (RSA PKCS#1 v1.5, ECDSA). */
export const SIGNATURE_DIGESTS: Record<string, string> = {
  "1.2.840.113549.1.1.5": "sha1",
  "1.2.840.113549.1.1.11": "sha256",
  "1.2.840.113549.1.1.12": "sha384",
  "1.2.840.113549.1.1.13": "sha512",
  "1.2.840.10045.4.3.2": "sha256",
  "1.2.840.10045.4.3.3": "sha384",
  "1.2.840.10045.4.3.4": "sha512",
};

export const oid = (value: string) => asn1.create(U, T.OID, false, asn1.oidToDer(value).getBytes());
export const seq = (items: Asn1[]) => asn1.create(U, T.SEQUENCE, true, items);
export const set = (items: Asn1[]) => asn1.create(U, T.SET, true, items);
export const octets = (bytes: string) => asn1.create(U, T.OCTETSTRING, false, bytes);
export const int = (n: number) => asn1.create(U, T.INTEGER, false, asn1.integerToDer(n).getBytes());
export const bool = (value: boolean) => asn1.create(U, T.BOOLEAN, false, value ? "\xff" : "\x00");
export const algorithm = (value: string) => seq([oid(value), asn1.create(U, T.NULL, false, "")]);
export const explicit = (tag: number, node: Asn1) => asn1.create(CTX, tag, true, [node]);
export const der = (node: Asn1) => asn1.toDer(node).getBytes();
export const toBuffer = (binary: string) => Buffer.from(binary, "binary");
export const fromDer = (bytes: Buffer | string): Asn1 =>
  asn1.fromDer(typeof bytes === "string" ? bytes : bytes.toString("binary"), {
    strict: true,
    decodeBitStrings: false,
  });

/** The hash function node:crypto knows for a digest algorithm identifier. */
export function digestName(algorithmId: Der | undefined): string {
  const name = DIGEST_NAMES[oidOf(childrenOf(algorithmId)[0])];
  if (!name) throw new CmsError("unsupported digest algorithm");
  return name;
}

export class CmsError extends Error {
  override name = "CmsError";
}

export interface VerifiedSignedData {
  /** The encapsulated content's type and bytes (eContent). */
  contentType: string;
  content: Buffer;
  signer: X509Certificate;
  /** Every certificate the SignedData carries, DER. */
  certificates: Buffer[];
}

/**
 * Parsed certificates by DER. Parsing one (node:crypto) costs more than the rest of a time stamp's
 * check, and every seal meets the same few again (the TSA's, the CA's, the seal's own).
 */
const parsedCertificates = new Map<string, X509Certificate>();
const PARSED_CERTIFICATES_MAX = 256;

export function certificateOf(bytes: Buffer): X509Certificate {
  const key = bytes.toString("base64");
  let certificate = parsedCertificates.get(key);
  if (!certificate) {
    if (parsedCertificates.size >= PARSED_CERTIFICATES_MAX) parsedCertificates.clear();
    certificate = new X509Certificate(bytes);
    parsedCertificates.set(key, certificate);
  }
  return certificate;
}

/** A serial number as compared everywhere: upper-case hex without leading zeros (node's `serialNumber` is hex). */
export const serialKey = (hex: string) => hex.replace(/^0+/, "").toUpperCase();

/**
 * Parses a ContentInfo of SignedData with one signer and verifies it cryptographically: the
 * signed attributes' message digest equals the digest of the encapsulated content, and the
 * signature over the signed attributes verifies with the certificate named by the signer id.
 * Trust in that certificate (its chain) is the caller's question. The certificates it returns
 * are views into `contentInfo`, as received.
 */
export function verifySignedData(contentInfo: Buffer): VerifiedSignedData {
  let root: Der;
  try {
    root = readWholeDer(contentInfo);
  } catch {
    throw new CmsError("not DER");
  }
  let parts: SignedDataParts;
  try {
    parts = readSignedData(root);
  } catch {
    throw new CmsError("not CMS SignedData");
  }
  const { content, signedAttrs } = parts;
  if (!content) throw new CmsError("no encapsulated content");
  if (parts.signerCount !== 1) throw new CmsError("expected exactly one signer");
  if (!signedAttrs) throw new CmsError("no signed attributes");
  const named = certificatesNamedBy(parts.sid, parts.certificates)[0];
  if (!named) throw new CmsError("the signer's certificate is not in the token");
  const signer = certificateOf(named.raw);

  const hash = digestName(parts.digestAlgorithm);
  const messageDigest = attributeValue(signedAttrs, OID.messageDigest)?.content;
  if (!messageDigest?.length || !createHash(hash).update(content).digest().equals(messageDigest))
    throw new CmsError("message digest does not match the content");
  if (oidOf(attributeValue(signedAttrs, OID.contentType)) !== parts.contentType)
    throw new CmsError("content type attribute does not match");
  const essV2 = attributeValue(signedAttrs, OID.signingCertificateV2);
  const ess = essV2 ?? attributeValue(signedAttrs, OID.signingCertificate);
  if (ess) {
    // SigningCertificate(V2) { certs SEQUENCE OF ESSCertID(v2) }: the first names the signer.
    const certId = childrenOf(childrenOf(ess)[0])[0];
    const fields = childrenOf(certId);
    const explicitAlg =
      essV2 && fields[0]?.tag === TAG.sequence && fields.length > 1 && fields[1]?.tag === TAG.octetString;
    const alg = essV2 ? (explicitAlg ? digestName(fields[0]) : "sha256") : "sha1";
    const hashNode = explicitAlg ? fields[1] : fields[0];
    if (
      !createHash(alg)
        .update(signer.raw)
        .digest()
        .equals(hashNode?.content ?? Buffer.alloc(0))
    )
      throw new CmsError("the signing-certificate attribute names another certificate");
  }
  const sigAlg = oidOf(childrenOf(parts.signatureAlgorithm)[0]);
  const verifyHash =
    SIGNATURE_DIGESTS[sigAlg] ?? (sigAlg === OID.rsaEncryption || sigAlg === "1.2.840.10045.2.1" ? hash : undefined);
  if (!verifyHash) throw new CmsError("unsupported signature algorithm");
  const signature = parts.signatureValue?.content ?? Buffer.alloc(0);
  if (!cryptoVerify(verifyHash, signedAttributesBytes(signedAttrs), signer.publicKey, signature))
    throw new CmsError("the signature does not verify");
  return { contentType: parts.contentType, content, signer, certificates: parts.certificates.map((c) => c.raw) };
}

/** A certificate object's DER elements, read once per object (certificateOf keeps them). */
const certificateElements = new WeakMap<X509Certificate, Der>();
function elementsOf(certificate: X509Certificate): Der {
  let der = certificateElements.get(certificate);
  if (!der) certificateElements.set(certificate, (der = readDer(certificate.raw)));
  return der;
}

/** The DER of a certificate's issuer Name. */
export const issuerDerOf = (certificate: X509Certificate): Buffer =>
  certificateParts(elementsOf(certificate)).issuer!.raw;

/** The DER inside a certificate's extension, or undefined when the certificate has none. */
export const extensionValue = (certificate: X509Certificate, extensionOid: string): Der | undefined =>
  extensionValueOf(elementsOf(certificate), extensionOid);

/** "CN=…, O=…" from node's multi-line form. */
export const subjectText = (certificate: X509Certificate) => certificate.subject.split("\n").filter(Boolean).join(", ");
