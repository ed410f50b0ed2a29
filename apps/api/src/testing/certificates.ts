/**
 * Certificates and PKCS#12 files made in the test (node-forge with RSA keys from node:crypto),
 * for the organization seal's checks and for documents sealed elsewhere.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import forge from "node-forge";

export interface TestCertificate {
  key: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
  keyPem: string;
  certificatePem: string;
}

export interface CertificateOptions {
  commonName: string;
  organization?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Default: digitalSignature and nonRepudiation. `null` leaves the extension out. */
  keyUsage?: {
    digitalSignature?: boolean;
    nonRepudiation?: boolean;
    keyEncipherment?: boolean;
    keyCertSign?: boolean;
  } | null;
  /** Extended key usage names as forge knows them (emailProtection, serverAuth …). */
  extKeyUsage?: Record<string, boolean>;
  ca?: boolean;
  /** Signed by this CA (else self-signed). */
  issuer?: TestCertificate;
}

const DAY = 24 * 3600 * 1000;

function rsaKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return forge.pki.privateKeyFromPem(
    privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
  ) as forge.pki.rsa.PrivateKey;
}

export function makeCertificate(options: CertificateOptions): TestCertificate {
  const key = rsaKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `01${randomBytes(15).toString("hex")}`;
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - DAY);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY);
  const name = [
    { name: "commonName", value: options.commonName },
    { name: "organizationName", value: options.organization ?? options.commonName },
  ];
  cert.setSubject(name);
  cert.setIssuer(options.issuer ? options.issuer.certificate.subject.attributes : name);
  const extensions: object[] = [{ name: "basicConstraints", cA: options.ca ?? false }];
  const keyUsage =
    options.keyUsage === undefined
      ? options.ca
        ? { keyCertSign: true, digitalSignature: true }
        : { digitalSignature: true, nonRepudiation: true }
      : options.keyUsage;
  if (keyUsage) extensions.push({ name: "keyUsage", ...keyUsage });
  if (options.extKeyUsage) extensions.push({ name: "extKeyUsage", ...options.extKeyUsage });
  cert.setExtensions(extensions);
  cert.sign(options.issuer?.key ?? key, forge.md.sha256.create());
  return {
    key,
    certificate: cert,
    keyPem: forge.pki.privateKeyToPem(key),
    certificatePem: forge.pki.certificateToPem(cert),
  };
}

/** A PKCS#12 holding `key` (default: the certificate's own) and the certificates, base64. */
export function makeP12(
  password: string,
  certificates: TestCertificate[],
  key: forge.pki.rsa.PrivateKey = certificates[0]!.key,
): string {
  const asn1 = forge.pkcs12.toPkcs12Asn1(
    key,
    certificates.map((c) => c.certificate),
    password,
    { algorithm: "aes256" },
  );
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), "binary").toString("base64");
}

export const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

/** An ASN.1 INTEGER of any size (forge's integerToDer stops at 32 bits). */
function integer(value: number): forge.asn1.Asn1 {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (parseInt(hex.slice(0, 2), 16) & 0x80) hex = `00${hex}`;
  return forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.INTEGER, false, forge.util.hexToBytes(hex));
}

/**
 * A PKCS#12 from `makeP12` with other iteration counts written into it: the MAC's and/or the
 * shrouded key bag's (PBES2 or PKCS#12 PBE). Nothing is derived with them here, so a file naming
 * 2³¹ iterations is made at once; its MAC no longer matches (a file an attacker would send).
 */
export function withIterationCounts(p12Base64: string, counts: { mac?: number; keyBag?: number }): string {
  const { asn1 } = forge;
  const kids = (node: forge.asn1.Asn1) => node.value as forge.asn1.Asn1[];
  const oidOf = (node: forge.asn1.Asn1) => asn1.derToOid(node.value as string);
  const pfx = asn1.fromDer(forge.util.decode64(p12Base64));
  if (counts.mac !== undefined) kids(kids(pfx)[2]!)[2] = integer(counts.mac);
  if (counts.keyBag !== undefined) {
    // authSafe ContentInfo → [0] → OCTET STRING holding the AuthenticatedSafe.
    const authSafeOctets = kids(kids(kids(pfx)[1]!)[1]!)[0]!;
    const authenticatedSafe = asn1.fromDer(authSafeOctets.value as string);
    for (const contentInfo of kids(authenticatedSafe)) {
      const [type, explicit] = kids(contentInfo);
      if (oidOf(type!) !== forge.pki.oids.data || !explicit) continue;
      const octets = kids(explicit)[0]!;
      const safeContents = asn1.fromDer(octets.value as string);
      for (const bag of kids(safeContents)) {
        if (oidOf(kids(bag)[0]!) !== forge.pki.oids.pkcs8ShroudedKeyBag) continue;
        const [algorithmId, parameters] = kids(kids(kids(kids(bag)[1]!)[0]!)[0]!);
        const pbes2 = oidOf(algorithmId!) === forge.pki.oids.pkcs5PBES2;
        // PBES2: parameters.keyDerivationFunc.parameters (salt, iterations); PKCS#12 PBE: (salt, iterations).
        const target = pbes2 ? kids(kids(parameters!)[0]!)[1]! : parameters!;
        kids(target)[1] = integer(counts.keyBag);
      }
      octets.value = asn1.toDer(safeContents).getBytes();
    }
    authSafeOctets.value = asn1.toDer(authenticatedSafe).getBytes();
  }
  return forge.util.encode64(asn1.toDer(pfx).getBytes());
}
