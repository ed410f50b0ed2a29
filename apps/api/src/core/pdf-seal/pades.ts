import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  sign as cryptoSign,
  type KeyObject,
} from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import forge from "node-forge";
import { SignPdf } from "@signpdf/signpdf";
import { Signer } from "@signpdf/utils";
import type { Config } from "../../env";
import { algorithm, der, int, OID, octets, oid, seq, set } from "./cms";
import { derElement, TAG } from "./der";

/** The key and certificate chain that seal completed documents. */
export interface SigningIdentity {
  privateKey: KeyObject;
  certificate: forge.pki.Certificate;
  chain: forge.pki.Certificate[];
  /** SHA-256 of the signing certificate's DER, hex. */
  fingerprint: string;
  subject: string;
  /** True when this is the self-signed development certificate. */
  development: boolean;
}

const DEV_P12 = "dev-signing.p12";
const DEV_PASSWORD = "dev-signing.password";

/** Where the development certificate lives; the start log and admin UI point here. */
export const devSigningDir = (dataDir: string) => join(dataDir, "signing");

function writeAtomic(path: string, data: string | Buffer) {
  const temp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, data, { mode: 0o600 });
  renameSync(temp, path);
}

/**
 * A self-signed RSA certificate for development, generated once under DATA_DIR/signing. Sealed
 * PDFs verify as unmodified with it, but no reader trusts its issuer.
 */
function ensureDevP12(dataDir: string): { p12: Buffer; password: string } {
  const dir = devSigningDir(dataDir);
  const p12Path = join(dir, DEV_P12);
  const passwordPath = join(dir, DEV_PASSWORD);
  if (!existsSync(p12Path) || !existsSync(passwordPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const key = forge.pki.privateKeyFromPem(privateKey.export({ type: "pkcs1", format: "pem" }).toString());
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString());
    cert.serialNumber = `01${randomBytes(15).toString("hex")}`;
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
    const name = [
      { name: "commonName", value: "ClinSign development seal (not trusted)" },
      { name: "organizationName", value: "ClinSign development" },
    ];
    cert.setSubject(name);
    cert.setIssuer(name);
    cert.setExtensions([
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, nonRepudiation: true },
      { name: "subjectKeyIdentifier" },
    ]);
    cert.sign(key, forge.md.sha256.create());
    const password = randomBytes(24).toString("base64url");
    const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, {
      algorithm: "aes256",
      friendlyName: "clinsign-dev",
    });
    writeAtomic(passwordPath, password);
    writeAtomic(p12Path, Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary"));
    chmodSync(dir, 0o700);
  }
  return { p12: readFileSync(p12Path), password: readFileSync(passwordPath, "utf8").trim() };
}

/** Reads key and certificates from a PKCS#12 file (RSA keys). */
export function identityFromP12(p12: Buffer, password: string, development: boolean): SigningIdentity {
  const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(p12.toString("binary")), false, password);
  const oids = forge.pki.oids as Record<string, string>;
  const bags = (type: string): forge.pkcs12.Bag[] => parsed.getBags({ bagType: type })[type] ?? [];
  const keyBag = bags(oids.pkcs8ShroudedKeyBag!)[0] ?? bags(oids.keyBag!)[0];
  const key = keyBag?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!key) throw new Error("the PKCS#12 file holds no (RSA) private key");
  const certs = bags(oids.certBag!).flatMap((b): forge.pki.Certificate[] => (b.cert ? [b.cert] : []));
  const certificate = certs.find((c: forge.pki.Certificate) => {
    const pub = c.publicKey as forge.pki.rsa.PublicKey;
    return pub.n?.equals(key.n) && pub.e?.equals(key.e);
  });
  if (!certificate) throw new Error("the PKCS#12 file holds no certificate for its private key");
  return identityOf(
    createPrivateKey(forge.pki.privateKeyToPem(key)),
    [certificate, ...certs.filter((c: forge.pki.Certificate) => c !== certificate)],
    development,
  );
}

/** "CN=…, O=…" of a certificate's subject or issuer. */
export const distinguishedName = (name: forge.pki.Certificate["subject"]) =>
  name.attributes.map((a: forge.pki.CertificateField) => `${a.shortName ?? a.name}=${String(a.value)}`).join(", ");

/** SHA-256 of a certificate's DER, hex: how the service names a certificate everywhere. */
export const certificateFingerprint = (certificate: forge.pki.Certificate) =>
  createHash("sha256")
    .update(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), "binary"))
    .digest("hex");

/** An identity from its key and chain (signing certificate first). */
export function identityOf(
  privateKey: KeyObject,
  chain: forge.pki.Certificate[],
  development: boolean,
): SigningIdentity {
  const certificate = chain[0]!;
  return {
    privateKey,
    certificate,
    chain,
    fingerprint: certificateFingerprint(certificate),
    subject: distinguishedName(certificate.subject),
    development,
  };
}

/**
 * Parsed identities by source (the P12 file, or the development certificate's data directory),
 * with what they were parsed from: PKCS#12 decryption (forge, PBKDF2) costs far more than a seal,
 * so it runs once per certificate, and a P12 file replaced in place (a renewed certificate) is
 * parsed again on the next seal instead of after a restart.
 */
const identities = new Map<string, { version: string; identity: SigningIdentity }>();

/**
 * SIGNING_P12_FILE when configured, else the development certificate (generated on first use;
 * the server calls this at start so the first start creates it).
 */
export function loadSigningIdentity(config: Pick<Config, "signingP12" | "dataDir">): SigningIdentity {
  const source = config.signingP12 ? `p12:${config.signingP12.file}` : `dev:${config.dataDir}`;
  const cached = identities.get(source);
  // The development certificate is ours and never replaced while running; a configured file may be.
  if (cached && !config.signingP12) return cached.identity;
  const p12 = config.signingP12
    ? { p12: readFileSync(config.signingP12.file), password: config.signingP12.password }
    : ensureDevP12(config.dataDir);
  const version = createHash("sha256").update(p12.p12).update("\0").update(p12.password).digest("hex");
  if (cached?.version === version) return cached.identity;
  const identity = identityFromP12(p12.p12, p12.password, !config.signingP12);
  identities.set(source, { version, identity });
  return identity;
}

// ---------------------------------------------------------------- CMS (CAdES-BES) for PAdES B-B/B-T

const sha256Binary = (bytes: string | Buffer) =>
  createHash("sha256")
    .update(typeof bytes === "string" ? Buffer.from(bytes, "binary") : bytes)
    .digest()
    .toString("binary");
const attribute = (type: string, value: forge.asn1.Asn1) => seq([oid(type), set([value])]);

/** The parts of the CMS that depend only on the signing identity, DER, encoded once per identity. */
interface IdentityCmsParts {
  /** issuerAndSerialNumber of the signing certificate. */
  signerId: Buffer;
  /** SHA-256 of the signing certificate's DER, for the signing-certificate-v2 attribute. */
  certificateSha256: string;
  /** The chain, the SignedData's certificates, one after the other. */
  certificates: Buffer;
}

/**
 * Keyed by the identity object itself, which loadSigningIdentity keeps per certificate source:
 * a different certificate is a different identity object and gets its own entry.
 */
const cmsParts = new WeakMap<SigningIdentity, IdentityCmsParts>();

const derOf = (node: forge.asn1.Asn1) => Buffer.from(der(node), "binary");

function cmsPartsOf(identity: SigningIdentity): IdentityCmsParts {
  let parts = cmsParts.get(identity);
  if (!parts) {
    const certificate = forge.pki.certificateToAsn1(identity.certificate);
    const tbs = certificate.value[0] as forge.asn1.Asn1;
    const fields = tbs.value as forge.asn1.Asn1[];
    // tbsCertificate: [0] version, serialNumber, signature, issuer, …
    parts = {
      signerId: derOf(seq([fields[3]!, fields[1]!])),
      certificateSha256: sha256Binary(der(certificate)),
      certificates: Buffer.concat(identity.chain.map((c) => derOf(forge.pki.certificateToAsn1(c)))),
    };
    cmsParts.set(identity, parts);
  }
  return parts;
}

/**
 * Makes the signature time stamp (PAdES B-T) for a signature value: the RFC 3161 token over it,
 * DER. Throws when no valid token can be had; then nothing is sealed.
 */
export type SignatureTimestamper = (signatureValue: Buffer) => Promise<Buffer>;

/**
 * Detached CMS signature as PAdES baseline B-B expects it: content type, message digest and the
 * ESS signing-certificate-v2 attribute, no signing-time attribute (the time is the
 * signature dictionary's /M). With a timestamper, the signer info also carries the signature
 * time stamp (unsigned attribute id-aa-signatureTimeStampToken over the signature value): B-T.
 */
export async function cadesSignature(
  content: Buffer,
  identity: SigningIdentity,
  timestamper?: SignatureTimestamper,
): Promise<Buffer> {
  const { attributes, signature } = signAttributes(content, identity);
  // The token goes in as the TSA sent it (tsa.ts checked it): Attribute { OID, SET { token } }.
  const unsigned = timestamper
    ? [derElement(TAG.sequence, TIME_STAMP_TOKEN_OID, derElement(TAG.set, await timestamper(signature)))]
    : [];
  return assembleCms(identity, attributes, signature, unsigned);
}

/** B-B only (no time stamp), synchronously. */
export function cadesDetachedSignature(content: Buffer, identity: SigningIdentity): Buffer {
  const { attributes, signature } = signAttributes(content, identity);
  return assembleCms(identity, attributes, signature, []);
}

/** The signed attributes (DER, in SET OF order) and the signature over them. */
function signAttributes(content: Buffer, identity: SigningIdentity) {
  const { certificateSha256 } = cmsPartsOf(identity);
  const attributes = [
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octets(sha256Binary(content))),
    attribute(OID.signingCertificateV2, seq([seq([seq([octets(certificateSha256)])])])),
  ]
    .map(derOf)
    // DER: members of a SET OF in the order of their encodings.
    .sort(Buffer.compare);
  const signature = cryptoSign("sha256", derElement(TAG.set, ...attributes), identity.privateKey);
  return { attributes, signature };
}

const SHA256_ALGORITHM = derOf(algorithm(OID.sha256));
const RSA_ALGORITHM = derOf(algorithm(OID.rsaEncryption));
const VERSION_1 = derOf(int(1));
const SIGNED_DATA_OID = derOf(oid(OID.signedData));
const TIME_STAMP_TOKEN_OID = derOf(oid(OID.timeStampToken));
const DATA_CONTENT_INFO = derOf(seq([oid(OID.data)]));

/** ContentInfo { signedData, SignedData { … one SignerInfo } }, put together from DER parts. */
function assembleCms(identity: SigningIdentity, attributes: Buffer[], signature: Buffer, unsigned: Buffer[]): Buffer {
  const { signerId, certificates } = cmsPartsOf(identity);
  const signerInfo = derElement(
    TAG.sequence,
    VERSION_1,
    signerId,
    SHA256_ALGORITHM,
    derElement(0xa0, ...attributes),
    RSA_ALGORITHM,
    derElement(TAG.octetString, signature),
    ...(unsigned.length ? [derElement(0xa1, ...unsigned)] : []),
  );
  const signedData = derElement(
    TAG.sequence,
    VERSION_1,
    derElement(TAG.set, SHA256_ALGORITHM),
    DATA_CONTENT_INFO,
    derElement(0xa0, certificates),
    derElement(TAG.set, signerInfo),
  );
  return derElement(TAG.sequence, SIGNED_DATA_OID, derElement(0xa0, signedData));
}

class PadesSigner extends Signer {
  constructor(
    private readonly identity: SigningIdentity,
    private readonly timestamper: SignatureTimestamper | undefined,
  ) {
    super();
  }
  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return cadesSignature(pdfBuffer, this.identity, this.timestamper);
  }
}

/**
 * Signs a document prepared by `addSealPlaceholder` (in the PDF worker): a detached CMS over its
 * byte range (time-stamped when a timestamper is given), written into the placeholder. Byte work
 * only, no PDF parsing, so the private key never leaves this thread.
 */
export async function signSealPlaceholder(
  prepared: Uint8Array,
  identity: SigningIdentity,
  timestamper?: SignatureTimestamper,
): Promise<Buffer> {
  return new SignPdf().sign(Buffer.from(prepared), new PadesSigner(identity, timestamper));
}
