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
