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
import { childrenOf, isContextTag, octetsOf, oidOf, readDer, readWholeDer, TAG, type Der } from "./der";

const { asn1 } = forge;
export type Asn1 = forge.asn1.Asn1;
export const U = asn1.Class.UNIVERSAL;
export const T = asn1.Type;
const CTX = asn1.Class.CONTEXT_SPECIFIC;

export const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingCertificate: "1.2.840.113549.1.9.16.2.12",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  timeStampToken: "1.2.840.113549.1.9.16.2.14",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  sha1: "1.3.14.3.2.26",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
  rsaEncryption: "1.2.840.113549.1.1.1",
  timeStamping: "1.3.6.1.5.5.7.3.8",
  ocspBasic: "1.3.6.1.5.5.7.48.1.1",
  ocspNonce: "1.3.6.1.5.5.7.48.1.2",
} as const;

const DIGESTS: Record<string, string> = {
  [OID.sha1]: "sha1",
  [OID.sha256]: "sha256",
  [OID.sha384]: "sha384",
  [OID.sha512]: "sha512",
};
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
  const name = DIGESTS[oidOf(childrenOf(algorithmId)[0])];
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
/** `serialKey` of a DER INTEGER's content octets (forge's binary string). */
export const serialKeyOfInteger = (bytes: string) => serialKey(Buffer.from(bytes, "binary").toString("hex"));

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
  const [typeNode, wrapped] = childrenOf(root);
  if (oidOf(typeNode) !== OID.signedData || !isContextTag(wrapped, 0)) throw new CmsError("not CMS SignedData");
  const fields = childrenOf(childrenOf(wrapped)[0]);
  const [eType, eWrapped] = childrenOf(fields[2]);
  const eContent = childrenOf(eWrapped)[0];
  if (!eContent) throw new CmsError("no encapsulated content");
  // eContent may be a constructed OCTET STRING (BER); octetsOf joins its pieces.
  const content = octetsOf(eContent);
  const certificates = fields.filter((f) => isContextTag(f, 0)).flatMap((f) => f.children.map((c) => c.raw));
  const signerInfos = childrenOf(fields[fields.length - 1]);
  if (signerInfos.length !== 1) throw new CmsError("expected exactly one signer");
  const info = childrenOf(signerInfos[0]);
  const [, sid, digestAlgorithm, signedAttrs, signatureAlgorithm, signatureNode] = info;
  if (!signedAttrs || !isContextTag(signedAttrs, 0)) throw new CmsError("no signed attributes");
  const parsed = certificates.map(certificateOf);
  let signer: X509Certificate | undefined;
  if (isContextTag(sid, 0)) {
    const keyId = sid!.content.toString("hex").toUpperCase();
    signer = parsed.find((c) => subjectKeyId(c) === keyId);
  } else {
    const [issuer, serial] = childrenOf(sid);
    const serialWanted = serialKey(serial?.content.toString("hex") ?? "");
    signer = parsed.find(
      (c) => serialKey(c.serialNumber) === serialWanted && issuer !== undefined && issuerDerOf(c).equals(issuer.raw),
    );
  }
  if (!signer) throw new CmsError("the signer's certificate is not in the token");

  const hash = digestName(digestAlgorithm);
  const attributes = signedAttrs.children;
  const attributeValue = (type: string) =>
    childrenOf(childrenOf(attributes.find((a) => oidOf(a.children[0]) === type))[1])[0];
  const messageDigest = attributeValue(OID.messageDigest)?.content;
  if (!messageDigest?.length || !createHash(hash).update(content).digest().equals(messageDigest))
    throw new CmsError("message digest does not match the content");
  if (oidOf(attributeValue(OID.contentType)) !== oidOf(eType))
    throw new CmsError("content type attribute does not match");
  const essV2 = attributeValue(OID.signingCertificateV2);
  const essV1 = attributeValue(OID.signingCertificate);
  const ess = essV2 ?? essV1;
  if (ess) {
    // SigningCertificate(V2) { certs SEQUENCE OF ESSCertID(v2) }: the first names the signer.
    const parts = childrenOf(childrenOf(childrenOf(ess)[0])[0]);
    const explicitAlg =
      essV2 && parts[0]?.tag === TAG.sequence && parts.length > 1 && parts[1]?.tag === TAG.octetString;
    const alg = essV2 ? (explicitAlg ? digestName(parts[0]) : "sha256") : "sha1";
    const hashNode = explicitAlg ? parts[1] : parts[0];
    if (
      !createHash(alg)
        .update(signer.raw)
        .digest()
        .equals(hashNode?.content ?? Buffer.alloc(0))
    )
      throw new CmsError("the signing-certificate attribute names another certificate");
  }
  // The signature covers the attributes as a SET OF: the same bytes under the SET's tag.
  const signedBytes = Buffer.from(signedAttrs.raw);
  signedBytes[0] = TAG.set;
  const sigAlg = oidOf(childrenOf(signatureAlgorithm)[0]);
  const verifyHash =
    SIGNATURE_DIGESTS[sigAlg] ?? (sigAlg === OID.rsaEncryption || sigAlg === "1.2.840.10045.2.1" ? hash : undefined);
  if (!verifyHash) throw new CmsError("unsupported signature algorithm");
  if (!cryptoVerify(verifyHash, signedBytes, signer.publicKey, signatureNode?.content ?? Buffer.alloc(0)))
    throw new CmsError("the signature does not verify");
  return { contentType: oidOf(eType), content, signer, certificates };
}

/** A certificate's tbsCertificate fields, read once per certificate object (certificateOf keeps them). */
const tbsFields = new WeakMap<X509Certificate, { fields: Der[]; offset: number }>();
function tbsOf(certificate: X509Certificate): { fields: Der[]; offset: number } {
  let tbs = tbsFields.get(certificate);
  if (!tbs) {
    const fields = childrenOf(childrenOf(readDer(certificate.raw))[0]);
    // tbsCertificate: [0] version (absent in v1), serialNumber, signature, issuer, validity, subject, …
    tbs = { fields, offset: isContextTag(fields[0], 0) ? 1 : 0 };
    tbsFields.set(certificate, tbs);
  }
  return tbs;
}

/** The DER of a certificate's issuer Name. */
export function issuerDerOf(certificate: X509Certificate): Buffer {
  const { fields, offset } = tbsOf(certificate);
  return fields[offset + 2]!.raw;
}

/** The DER of a certificate's subject Name. */
export function subjectDerOf(certificate: X509Certificate): Buffer {
  const { fields, offset } = tbsOf(certificate);
  return fields[offset + 4]!.raw;
}

/** The extensions of a certificate ([3] of tbsCertificate), each SEQUENCE { extnID, critical?, extnValue }. */
function extensionsOf(certificate: X509Certificate): Der[] {
  return childrenOf(childrenOf(tbsOf(certificate).fields.find((n) => isContextTag(n, 3)))[0]);
}

/** The DER inside an extension's OCTET STRING value, or undefined when the certificate has none. */
export function extensionValue(certificate: X509Certificate, extensionOid: string): Der | undefined {
  const extension = extensionsOf(certificate).find((e) => oidOf(e.children[0]) === extensionOid);
  return extension && readDer(extension.children[extension.children.length - 1]!.content);
}

/** The subject key identifier extension, upper-case hex, or null. */
function subjectKeyId(certificate: X509Certificate): string | null {
  const value = extensionValue(certificate, "2.5.29.14");
  return value ? value.content.toString("hex").toUpperCase() : null;
}

/** "CN=…, O=…" from node's multi-line form. */
export const subjectText = (certificate: X509Certificate) => certificate.subject.split("\n").filter(Boolean).join(", ");
