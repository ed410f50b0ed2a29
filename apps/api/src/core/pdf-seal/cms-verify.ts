/**
 * Checks a detached CMS signature (CAdES, PAdES) and RFC 3161 timestamp tokens for `/verify`, on
 * the elements der.ts reads (each keeps its bytes: the signed attributes are verified exactly as
 * they were encoded) and the SignedData parts signed-data.ts names. Says what holds and what does
 * not, where the seal's own check (cms.ts) throws. Runs inside the PDF worker (the CMS came from
 * whoever dropped the file on /verify).
 */
import { createHash, constants, verify as cryptoVerify, X509Certificate } from "node:crypto";
import { oidOf, readDer, type Der } from "./der";
import {
  attributeValue,
  certificatesNamedBy,
  CMS_OID,
  DIGEST_NAMES,
  readSignedData,
  signedAttributesBytes,
} from "./signed-data";

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
const signerOf = (certificate: X509Certificate): SignerCertificate => ({
  subject: describeName(certificate.subject),
  issuer: describeName(certificate.issuer),
  fingerprint: certificate.fingerprint256.replace(/:/g, "").toLowerCase(),
});

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
  const parts = readSignedData(readDer(contentInfo));
  if (!parts.signerCount) throw new Error("no SignerInfo");
  const { signedAttrs, signatureValue } = parts;
  result.encapsulated = parts.content;
  result.hash = DIGEST_NAMES[oidOf(parts.digestAlgorithm?.children[0])] ?? "";
  if (!result.hash || !signedAttrs || !signatureValue) return result;
  result.signatureValue = signatureValue.content;
  const messageDigest = attributeValue(signedAttrs, CMS_OID.messageDigest);
  if (messageDigest?.tag === 0x04) result.messageDigest = messageDigest.content.toString("hex");
  result.signingTime = timeOf(attributeValue(signedAttrs, CMS_OID.signingTime));
  result.timestampToken = attributeValue(parts.unsignedAttrs, CMS_OID.timeStampToken)?.raw ?? null;
  const signed = content ?? result.encapsulated;
  if (signed && result.messageDigest)
    result.digestMatches = digestOf(signed, result.hash).toString("hex") === result.messageDigest;

  const toVerify = signedAttributesBytes(signedAttrs);
  const candidates = certificatesNamedBy(parts.sid, parts.certificates);
  const pss = oidOf(parts.signatureAlgorithm?.children[0]) === CMS_OID.rsaPss;
  for (const der of candidates.length ? candidates : parts.certificates) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(der.raw);
    } catch {
      continue;
    }
    result.signer ??= signerOf(certificate);
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
      result.signer = signerOf(certificate);
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
  const hash = DIGEST_NAMES[oidOf(imprint.children[0]?.children[0])];
  const hashed = imprint.children[1]?.content;
  const imprintMatches = !!hash && !!hashed && digestOf(stamped, hash).equals(hashed);
  return { genTime, valid: imprintMatches && checked.digestMatches && checked.signatureValid };
}
