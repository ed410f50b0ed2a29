/**
 * The parts of a CMS SignedData (RFC 5652) as read from its bytes, for both of its readers: the
 * seal's strict check of what a TSA or OCSP responder answered (cms.ts `verifySignedData`, which
 * throws) and `/verify`'s report on a dropped PDF's signatures (cms-verify.ts, which says what
 * holds and what does not). No node-forge here: `/verify` runs in the PDF worker.
 */
import { childrenOf, octetsOf, oidOf, readDer, type Der } from "./der";

export const CMS_OID = {
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificate: "1.2.840.113549.1.9.16.2.12",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  timeStampToken: "1.2.840.113549.1.9.16.2.14",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  rsaEncryption: "1.2.840.113549.1.1.1",
  rsaPss: "1.2.840.113549.1.1.10",
  sha1: "1.3.14.3.2.26",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
} as const;

/** node:crypto's names of the digest algorithms a SignedData may name. */
export const DIGEST_NAMES: Record<string, string> = {
  [CMS_OID.sha1]: "sha1",
  [CMS_OID.sha256]: "sha256",
  [CMS_OID.sha384]: "sha384",
  [CMS_OID.sha512]: "sha512",
};

export interface SignedDataParts {
  contentType: string;
  /** The encapsulated content (a time stamp's TSTInfo, an OCSP …), a constructed OCTET STRING's pieces joined; null when detached. */
  content: Buffer | null;
  /** The certificates it carries, each as its bytes. */
  certificates: Der[];
  /** How many SignerInfos there are; the parts below are the first one's. */
  signerCount: number;
  sid: Der | undefined;
  digestAlgorithm: Der | undefined;
  signedAttrs: Der | undefined;
  signatureAlgorithm: Der | undefined;
  signatureValue: Der | undefined;
  unsignedAttrs: Der | undefined;
}

/** Reads a ContentInfo of SignedData; throws when it is not one. */
export function readSignedData(contentInfo: Der): SignedDataParts {
  const [type, wrapped] = contentInfo.children;
  const signedData = childrenOf(wrapped)[0];
  if (oidOf(type) !== CMS_OID.signedData || wrapped?.tag !== 0xa0 || !signedData) throw new Error("not CMS SignedData");
  const fields = signedData.children;
  const [eContentType, eWrapped] = childrenOf(fields[2]);
  const eContent = childrenOf(eWrapped)[0];
  const signerInfos = childrenOf(fields.at(-1));
  // SignerInfo: version, sid, digestAlgorithm, signedAttrs [0]?, signatureAlgorithm, signature, unsignedAttrs [1]?
  const [, sid, digestAlgorithm, ...rest] = childrenOf(signerInfos[0]);
  return {
    contentType: oidOf(eContentType),
    content: eContent?.tag === 0x04 || eContent?.tag === 0x24 ? octetsOf(eContent) : null,
    certificates: fields.filter((f) => f.tag === 0xa0).flatMap((f) => f.children.filter((c) => c.tag === 0x30)),
    signerCount: signerInfos.length,
    sid,
    digestAlgorithm,
    signedAttrs: rest.find((c) => c.tag === 0xa0),
    signatureAlgorithm: rest.find((c) => c.tag === 0x30),
    signatureValue: rest.find((c) => c.tag === 0x04),
    unsignedAttrs: rest.find((c) => c.tag === 0xa1),
  };
}

/** The (first) value of an attribute in a set of attributes, signed or unsigned. */
export function attributeValue(attributes: Der | undefined, type: string): Der | undefined {
  return childrenOf(childrenOf(attributes).find((a) => oidOf(a.children[0]) === type)?.children[1])[0];
}

/** The signed attributes as signed: a SET OF (tag 0x31), not under their [0] tag. */
export const signedAttributesBytes = (signedAttrs: Der): Buffer =>
  Buffer.concat([Buffer.from([0x31]), signedAttrs.raw.subarray(1)]);

/**
 * The certificates the signer id names: issuerAndSerialNumber (their issuer and serial as
 * encoded), or [0] subjectKeyIdentifier (their extension of that value).
 */
export function certificatesNamedBy(sid: Der | undefined, certificates: Der[]): Der[] {
  if (sid?.tag === 0x30) return certificates.filter((c) => issuerAndSerialOf(c).equals(sid.content));
  if (sid?.tag === 0x80) return certificates.filter((c) => subjectKeyIdOf(c)?.equals(sid.content));
  return [];
}

/** A certificate's fields as encoded (tbsCertificate: [0] version?, serialNumber, signature, issuer, …, [3] extensions). */
export function certificateParts(certificate: Der): { serial?: Der; issuer?: Der; extensions: Der[] } {
  const all = childrenOf(certificate.children[0]);
  const fields = all[0]?.tag === 0xa0 ? all.slice(1) : all;
  const [serial, , issuer] = fields;
  return { serial, issuer, extensions: childrenOf(childrenOf(fields.find((f) => f.tag === 0xa3))[0]) };
}

function issuerAndSerialOf(certificate: Der): Buffer {
  const { serial, issuer } = certificateParts(certificate);
  return serial && issuer ? Buffer.concat([issuer.raw, serial.raw]) : Buffer.alloc(0);
}

/** The DER inside a certificate's extension's OCTET STRING, or undefined when it has none. */
export function extensionValueOf(certificate: Der, extensionOid: string): Der | undefined {
  const extension = certificateParts(certificate).extensions.find((e) => oidOf(e.children[0]) === extensionOid);
  const value = extension?.children.at(-1);
  return value && readDer(value.content);
}

const subjectKeyIdOf = (certificate: Der): Buffer | undefined => extensionValueOf(certificate, "2.5.29.14")?.content;
