/**
 * Checks a detached CMS signature (CAdES, PAdES) and RFC 3161 timestamp tokens on raw DER, with a
 * small reader that keeps each element's bytes: the signed attributes must be verified exactly
 * as they were encoded, which a decode-and-re-encode round trip does not promise. Runs inside the
 * PDF worker (the CMS came from whoever dropped the file on /verify).
 */
import { createHash, constants, verify as cryptoVerify, X509Certificate } from "node:crypto";
import { oidOf, readDer, type Der } from "./der";

/** UTCTime or GeneralizedTime as a Date. */
export function timeOf(node: Der | undefined): Date | null {
  if (!node || (node.tag !== 0x17 && node.tag !== 0x18)) return null;
  const text = node.content.toString("latin1");
  const m = (
    node.tag === 0x17
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/
      : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:[.,](\d+))?Z$/
  ).exec(text);
  if (!m) return null;
  const year = node.tag === 0x17 ? (Number(m[1]) < 50 ? 2000 : 1900) + Number(m[1]) : Number(m[1]);
  const ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  const date = new Date(
    Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), ms),
  );
  return Number.isNaN(date.getTime()) ? null : date;
}

const HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};
const OID = {
  signedData: "1.2.840.113549.1.7.2",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  rsaPss: "1.2.840.113549.1.1.10",
};

export interface SignerCertificate {
  subject: string;
  issuer: string;
  fingerprint: string;
}

/**
 * What a signature signs: its bytes, or a function giving their digest with a named hash
 * (`/verify` hashes a PDF's byte ranges in place instead of copying them).
 */
export type SignedContent = Buffer | ((hash: string) => Buffer);

const digestOf = (content: SignedContent, hash: string): Buffer =>
  Buffer.isBuffer(content) ? createHash(hash).update(content).digest() : content(hash);

export interface CheckedSignedData {
  /** The signed content's digest as the signer stated it (messageDigest attribute), hex. */
  messageDigest: string | null;
  /** messageDigest equals the digest of the content. */
  digestMatches: boolean;
  /** The signature over the signed attributes verifies with the signer's certificate. */
  signatureValid: boolean;
  signer: SignerCertificate | null;
  /** The signingTime attribute: the signer's own claim. */
  signingTime: Date | null;
  /** The encapsulated content (a timestamp token's TSTInfo), if any. */
  encapsulated: Buffer | null;
  /** The SignerInfo's signature value (what a signature timestamp's imprint hashes). */
  signatureValue: Buffer | null;
  /** The signature-time-stamp unsigned attribute's token (a ContentInfo), if any. */
  timestampToken: Buffer | null;
  hash: string;
}

const describeName = (name: string) => name.split("\n").filter(Boolean).join(", ");

/** Serial number and issuer of a certificate, raw, to match a SignerInfo's issuerAndSerialNumber. */
function signerIdOf(certificate: Der): Buffer {
  const tbs = certificate.children[0]!;
  const first = tbs.children[0]?.tag === 0xa0 ? 1 : 0;
  return Buffer.concat([tbs.children[first + 2]!.raw, tbs.children[first]!.raw]);
}

/**
 * Checks a CMS SignedData (a ContentInfo) over `content`, or over its own encapsulated content
 * when `content` is null (timestamp tokens). Never throws for a bad signature: it says so.
 */
export function checkSignedData(contentInfo: Buffer, content: SignedContent | null): CheckedSignedData {
  const result: CheckedSignedData = {
    messageDigest: null,
    digestMatches: false,
    signatureValid: false,
    signer: null,
    signingTime: null,
    encapsulated: null,
    signatureValue: null,
    timestampToken: null,
    hash: "sha256",
  };
  const root = readDer(contentInfo);
  if (oidOf(root.children[0]) !== OID.signedData) throw new Error("not a CMS SignedData");
  const signedData = root.children[1]?.children[0];
  if (!signedData) throw new Error("empty SignedData");
  const encap = signedData.children[2];
  const eContent = encap?.children[1]?.children[0];
  if (eContent?.tag === 0x04) result.encapsulated = eContent.content;
  const certificates = signedData.children.find((c) => c.tag === 0xa0)?.children.filter((c) => c.tag === 0x30) ?? [];
  const signerInfo = signedData.children.at(-1)?.children[0];
  if (!signerInfo) throw new Error("no SignerInfo");
  const [, sid, digestAlgorithm, ...rest] = signerInfo.children;
  const signedAttrs = rest.find((c) => c.tag === 0xa0);
  const signatureAlgorithm = rest.find((c) => c.tag === 0x30);
  const signatureValue = rest.find((c) => c.tag === 0x04);
  const unsignedAttrs = rest.find((c) => c.tag === 0xa1);
  result.hash = HASHES[oidOf(digestAlgorithm?.children[0])] ?? "";
  if (!result.hash || !signedAttrs || !signatureValue) return result;
  result.signatureValue = signatureValue.content;

  for (const attribute of signedAttrs.children) {
    const type = oidOf(attribute.children[0]);
    const value = attribute.children[1]?.children[0];
    if (type === OID.messageDigest && value?.tag === 0x04) result.messageDigest = value.content.toString("hex");
    if (type === OID.signingTime) result.signingTime = timeOf(value);
  }
  for (const attribute of unsignedAttrs?.children ?? []) {
    if (oidOf(attribute.children[0]) === OID.signatureTimeStampToken)
      result.timestampToken = attribute.children[1]?.children[0]?.raw ?? null;
  }
  const signed = content ?? result.encapsulated;
  if (signed && result.messageDigest)
    result.digestMatches = digestOf(signed, result.hash).toString("hex") === result.messageDigest;

  // The signed attributes are signed as a SET OF (tag 0x31), not with their [0] tag.
  const toVerify = Buffer.concat([Buffer.from([0x31]), signedAttrs.raw.subarray(1)]);
  const candidates = sid?.tag === 0x30 ? certificates.filter((c) => signerIdOf(c).equals(sid.content)) : [];
  const pss = oidOf(signatureAlgorithm?.children[0]) === OID.rsaPss;
  for (const der of candidates.length ? candidates : certificates) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(der.raw);
    } catch {
      continue;
    }
    result.signer ??= {
      subject: describeName(certificate.subject),
      issuer: describeName(certificate.issuer),
      fingerprint: certificate.fingerprint256.replace(/:/g, "").toLowerCase(),
    };
    let valid = false;
    try {
      const key = pss
        ? {
            key: certificate.publicKey,
            padding: constants.RSA_PKCS1_PSS_PADDING,
            saltLength: constants.RSA_PSS_SALTLEN_AUTO,
          }
        : certificate.publicKey;
      valid = cryptoVerify(result.hash, toVerify, key, signatureValue.content);
    } catch {
      valid = false;
    }
    if (valid) {
      result.signatureValid = true;
      result.signer = {
        subject: describeName(certificate.subject),
        issuer: describeName(certificate.issuer),
        fingerprint: certificate.fingerprint256.replace(/:/g, "").toLowerCase(),
      };
      break;
    }
  }
  return result;
}

export interface CheckedTimestamp {
  genTime: Date;
  /** The token's own signature verifies and its imprint is the digest of what it stamps. */
  valid: boolean;
}

/** An RFC 3161 timestamp token over `stamped` (a signature value, or a document's byte ranges). */
export function checkTimestampToken(token: Buffer, stamped: SignedContent): CheckedTimestamp | null {
  const checked = checkSignedData(token, null);
  if (!checked.encapsulated) return null;
  const tstInfo = readDer(checked.encapsulated);
  // TSTInfo: version, policy, messageImprint, serialNumber, genTime, …
  const [, , imprint, , genTimeNode] = tstInfo.children;
  const genTime = timeOf(genTimeNode);
  if (!genTime || !imprint) return null;
  const hash = HASHES[oidOf(imprint.children[0]?.children[0])];
  const hashed = imprint.children[1]?.content;
  const imprintMatches = !!hash && !!hashed && digestOf(stamped, hash).equals(hashed);
  return { genTime, valid: imprintMatches && checked.digestMatches && checked.signatureValid };
}
