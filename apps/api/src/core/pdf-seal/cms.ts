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

export const children = (node: Asn1 | undefined): Asn1[] => (Array.isArray(node?.value) ? (node.value as Asn1[]) : []);
export const bytesOf = (node: Asn1 | undefined): string => (typeof node?.value === "string" ? node.value : "");
export const oidOf = (node: Asn1 | undefined): string => asn1.derToOid(bytesOf(node));
export const isContext = (node: Asn1 | undefined, tag: number) => node?.tagClass === CTX && node.type === tag;

/** The hash function node:crypto knows for a digest algorithm identifier. */
export function digestName(algorithmId: Asn1 | undefined): string {
  const name = DIGESTS[oidOf(children(algorithmId)[0])];
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
 * Trust in that certificate (its chain) is the caller's question.
 */
export function verifySignedData(contentInfo: Buffer): VerifiedSignedData {
  let root: Asn1;
  try {
    root = fromDer(contentInfo);
  } catch {
    throw new CmsError("not DER");
  }
  const [typeNode, wrapped] = children(root);
  if (oidOf(typeNode) !== OID.signedData || !isContext(wrapped, 0)) throw new CmsError("not CMS SignedData");
  const fields = children(children(wrapped)[0]);
  const encap = fields[2];
  const [eType, eWrapped] = children(encap);
  const eContent = children(eWrapped)[0];
  if (!eContent) throw new CmsError("no encapsulated content");
  // eContent may be a constructed OCTET STRING (BER); join its pieces.
  const content = toBuffer(eContent.constructed ? children(eContent).map(bytesOf).join("") : bytesOf(eContent));
  const certificates = fields.filter((f) => isContext(f, 0)).flatMap((f) => children(f).map((c) => toBuffer(der(c))));
  const signerInfos = children(fields[fields.length - 1]);
  if (signerInfos.length !== 1) throw new CmsError("expected exactly one signer");
  const info = children(signerInfos[0]);
  const [, sid, digestAlgorithm, signedAttrs] = info;
  if (!isContext(signedAttrs, 0)) throw new CmsError("no signed attributes");
  const signatureAlgorithm = info[4];
  const signature = toBuffer(bytesOf(info[5]));
  const parsed = certificates.map(certificateOf);
  let signer: X509Certificate | undefined;
  if (isContext(sid, 0)) {
    const keyId = Buffer.from(bytesOf(sid), "binary").toString("hex").toUpperCase();
    signer = parsed.find((c) => subjectKeyId(c) === keyId);
  } else {
    const [issuer, serial] = children(sid);
    const issuerDer = toBuffer(der(issuer!));
    signer = parsed.find(
      (c) => serialKey(c.serialNumber) === serialKeyOfInteger(bytesOf(serial)) && issuerDerOf(c).equals(issuerDer),
    );
  }
  if (!signer) throw new CmsError("the signer's certificate is not in the token");

  const hash = digestName(digestAlgorithm);
  const attributes = children(signedAttrs);
  const attributeValue = (type: string) =>
    children(children(attributes.find((a) => oidOf(children(a)[0]) === type))[1])[0];
  const messageDigest = bytesOf(attributeValue(OID.messageDigest));
  if (!messageDigest || !createHash(hash).update(content).digest().equals(toBuffer(messageDigest)))
    throw new CmsError("message digest does not match the content");
  if (oidOf(attributeValue(OID.contentType)) !== oidOf(eType))
    throw new CmsError("content type attribute does not match");
  const essV2 = attributeValue(OID.signingCertificateV2);
  const essV1 = attributeValue(OID.signingCertificate);
  const ess = essV2 ?? essV1;
  if (ess) {
    // SigningCertificate(V2) { certs SEQUENCE OF ESSCertID(v2) }: the first names the signer.
    const certId = children(children(ess)[0])[0];
    const parts = children(certId);
    const explicitAlg =
      essV2 &&
      parts[0]?.type === T.SEQUENCE &&
      parts[0].tagClass === U &&
      parts.length > 1 &&
      parts[1]?.type === T.OCTETSTRING;
    const alg = essV2 ? (explicitAlg ? digestName(parts[0]) : "sha256") : "sha1";
    const hashNode = explicitAlg ? parts[1] : parts[0];
    if (
      !createHash(alg)
        .update(signer.raw)
        .digest()
        .equals(toBuffer(bytesOf(hashNode)))
    )
      throw new CmsError("the signing-certificate attribute names another certificate");
  }
  const signedBytes = toBuffer(der(set(attributes)));
  const sigAlg = oidOf(children(signatureAlgorithm)[0]);
  const verifyHash =
    SIGNATURE_DIGESTS[sigAlg] ?? (sigAlg === OID.rsaEncryption || sigAlg === "1.2.840.10045.2.1" ? hash : undefined);
  if (!verifyHash) throw new CmsError("unsupported signature algorithm");
  if (!cryptoVerify(verifyHash, signedBytes, signer.publicKey, signature))
    throw new CmsError("the signature does not verify");
  return { contentType: oidOf(eType), content, signer, certificates };
}

/** The DER of a certificate's issuer Name. */
export function issuerDerOf(certificate: X509Certificate): Buffer {
  const tbs = children(children(fromDer(certificate.raw))[0]);
  const offset = isContext(tbs[0], 0) ? 1 : 0;
  return toBuffer(der(tbs[offset + 2]!));
}

/** The DER of a certificate's subject Name. */
export function subjectDerOf(certificate: X509Certificate): Buffer {
  const tbs = children(children(fromDer(certificate.raw))[0]);
  const offset = isContext(tbs[0], 0) ? 1 : 0;
  return toBuffer(der(tbs[offset + 4]!));
}

/** The subject key identifier extension, upper-case hex, or null. */
function subjectKeyId(certificate: X509Certificate): string | null {
  const tbs = children(children(fromDer(certificate.raw))[0]);
  const extensions = children(children(tbs.find((n) => isContext(n, 3)))[0]);
  const ski = extensions.find((e) => oidOf(children(e)[0]) === "2.5.29.14");
  if (!ski) return null;
  const inner = fromDer(bytesOf(children(ski)[children(ski).length - 1]));
  return Buffer.from(bytesOf(inner), "binary").toString("hex").toUpperCase();
}

/** "CN=…, O=…" from node's multi-line form. */
export const subjectText = (certificate: X509Certificate) => certificate.subject.split("\n").filter(Boolean).join(", ");
