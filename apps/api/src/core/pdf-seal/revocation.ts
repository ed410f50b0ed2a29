/**
 * Revocation data for long-term validation (ltv.ts): for every certificate of a seal's and a time
 * stamp's chain, an OCSP answer (AIA) or a CRL (distribution points), fetched from the
 * certificate's own pointers through the outbound guard and checked (signed by the issuer or its
 * delegated responder, the certificate not revoked). Fails closed: no answer, no B-LT.
 */
import { createHash, verify as cryptoVerify, X509Certificate } from "node:crypto";
import forge from "node-forge";
import type { Config } from "../../env";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import {
  algorithm,
  certificateOf,
  der,
  extensionValue,
  issuerDerOf,
  OID,
  octets,
  seq,
  serialKey,
  SIGNATURE_DIGESTS,
  toBuffer,
  U,
  T,
} from "./cms";
import { childrenOf, isContextTag, oidOf, readDer, readWholeDer, TAG, type Der } from "./der";

/** Revocation data could not be had or says "revoked": the seal does not reach B-LT(A). */
export class RevocationError extends Error {
  override name = "RevocationError";
}

export interface ValidationData {
  certificates: Buffer[];
  ocsps: Buffer[];
  crls: Buffer[];
  /** Milliseconds spent waiting for OCSP responders and CRL servers. */
  waitMs: number;
}

/** What fetching revocation data needs of the configuration: the outbound guard's allowed hosts. */
export type RevocationConfig = Pick<Config, "outboundAllowHosts">;

const REVOCATION_TIMEOUT_MS = 10_000;
const REVOCATION_MAX_BYTES = 4 * 1024 * 1024;
const OCSP_SIGNING = "1.3.6.1.5.5.7.3.9";
/** GeneralName uniformResourceIdentifier: [6] IMPLICIT IA5String. */
const URI_TAG = 0x86;

/** A node-forge certificate (as the signing identity holds them) for node:crypto. */
const converted = new WeakMap<forge.pki.Certificate, X509Certificate>();
export function x509Of(certificate: forge.pki.Certificate): X509Certificate {
  let x509 = converted.get(certificate);
  if (!x509)
    converted.set(certificate, (x509 = certificateOf(toBuffer(der(forge.pki.certificateToAsn1(certificate))))));
  return x509;
}

export const isSelfSigned = memo((c) => c.subject === c.issuer && c.verify(c.publicKey));

/** Per certificate object (certificateOf keeps them): parsing them again costs on every seal. */
function memo<R>(compute: (c: X509Certificate) => R): (c: X509Certificate) => R {
  const cache = new WeakMap<X509Certificate, R>();
  return (c) => {
    if (!cache.has(c)) cache.set(c, compute(c));
    return cache.get(c)!;
  };
}

/** URIs (GeneralName [6]) in an extension of a certificate, per access method where it has one. */
function extensionUris(certificate: X509Certificate, extensionOid: string, method?: string): string[] {
  const value = extensionValue(certificate, extensionOid);
  if (!value) return [];
  const uris: string[] = [];
  const walk = (node: Der, inMethod: boolean) => {
    if (node.tag === URI_TAG && inMethod) uris.push(node.content.toString("latin1"));
    else if (node.children.length) {
      const parts = node.children;
      // AccessDescription: SEQUENCE { accessMethod OID, accessLocation GeneralName }
      const own = method && parts[0]?.tag === TAG.oid ? oidOf(parts[0]) === method : inMethod;
      for (const part of parts) walk(part, own);
    }
  };
  walk(value, !method);
  return uris.filter((u) => /^https?:\/\//i.test(u));
}

const ocspUrls = memo((c) => extensionUris(c, "1.3.6.1.5.5.7.1.1", "1.3.6.1.5.5.7.48.1"));
const crlUrls = memo((c) => extensionUris(c, "2.5.29.31"));

/** Issued-by checks, per pair of certificate objects (a signature verification each). */
const issuedBy = memo(() => new WeakMap<X509Certificate, boolean>());
function isIssuedBy(certificate: X509Certificate, issuer: X509Certificate): boolean {
  const known = issuedBy(certificate);
  if (!known.has(issuer)) known.set(issuer, certificate.checkIssued(issuer) && certificate.verify(issuer.publicKey));
  return known.get(issuer)!;
}

function issuerOf(certificate: X509Certificate, pool: X509Certificate[]): X509Certificate | undefined {
  return pool.find((c) => c.subject === certificate.issuer && isIssuedBy(certificate, c));
}

/** The certificate and its issuers up to a self-signed one, from the pool. */
export function chainOf(certificate: X509Certificate, pool: X509Certificate[]): X509Certificate[] {
  const chain = [certificate];
  for (let current = certificate; !isSelfSigned(current) && chain.length < 10;) {
    const issuer = issuerOf(current, pool);
    if (!issuer)
      throw new RevocationError(
        `the issuer of "${current.subject.replace(/\n/g, ", ")}" is not known (add the CA certificates to the certificate file)`,
      );
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

/** One responder's or CRL server's answer, through the outbound guard. */
async function fetchRevocation(config: RevocationConfig, ask: Ask): Promise<Buffer> {
  try {
    const response = await guardedFetch(
      ask.url,
      { allowHosts: config.outboundAllowHosts, allowPlainHttp: true },
      {
        ...(ask.kind === "ocsp"
          ? { method: "POST", body: ask.request, headers: { "content-type": "application/ocsp-request" } }
          : { method: "GET", headers: {} }),
        timeoutMs: REVOCATION_TIMEOUT_MS,
        maxBytes: REVOCATION_MAX_BYTES,
        purpose: ask.kind,
      },
    );
    if (response.status !== 200) throw new RevocationError(`${ask.url} answered HTTP ${response.status}`);
    return response.body;
  } catch (error) {
    if (error instanceof RevocationError) throw error;
    throw new RevocationError(
      `${ask.url}: ${error instanceof OutboundError ? `${error.reason}: ${error.message}` : String(error)}`,
    );
  }
}

const sha1 = (bytes: Buffer | string) =>
  createHash("sha1")
    .update(typeof bytes === "string" ? Buffer.from(bytes, "binary") : bytes)
    .digest();

/** SHA-1 of the subjectPublicKey bits of a certificate (the OCSP issuerKeyHash). */
const issuerKeyHash = memo((certificate) => {
  const spki = readDer(certificate.publicKey.export({ type: "spki", format: "der" }));
  return sha1(spki.children[1]!.content.subarray(1));
});

/** Verifies `signed` (a tbs part as received) against an AlgorithmIdentifier and a BIT STRING signature. */
function verifyWith(
  signatureAlgorithm: Der | undefined,
  signed: Buffer,
  signatureBits: Der | undefined,
  key: X509Certificate,
): boolean {
  const hash = SIGNATURE_DIGESTS[oidOf(childrenOf(signatureAlgorithm)[0])];
  if (!hash || !signatureBits?.content.length) return false;
  return cryptoVerify(hash, signed, key.publicKey, signatureBits.content.subarray(1));
}

/** What one link of a chain (a certificate and its issuer) asks, and where. */
type Ask = { certificate: X509Certificate; issuer: X509Certificate; url: string } & (
  | { kind: "crl" }
  /** The OCSP request (POSTed), and the CertID parts its answer must match. */
  | { kind: "ocsp"; request: Buffer; serialBytes: Buffer; issuerNameHash: Buffer }
);

/** The certificate's OCSP responder (AIA) when it names one, else its CRL (distribution points). */
function askFor(certificate: X509Certificate, issuer: X509Certificate): Ask {
  const [ocspUrl] = ocspUrls(certificate);
  if (ocspUrl) {
    const serial = Buffer.from(
      certificate.serialNumber.length % 2 ? `0${certificate.serialNumber}` : certificate.serialNumber,
      "hex",
    );
    const serialBytes = serial[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), serial]) : serial;
    const issuerNameHash = sha1(issuerDerOf(certificate));
    const certId = seq([
      algorithm(OID.sha1),
      octets(issuerNameHash.toString("binary")),
      octets(issuerKeyHash(issuer).toString("binary")),
      forge.asn1.create(U, T.INTEGER, false, serialBytes.toString("binary")),
    ]);
    const request = toBuffer(der(seq([seq([seq([seq([certId])])])])));
    return { kind: "ocsp", certificate, issuer, url: ocspUrl, request, serialBytes, issuerNameHash };
  }
  const [crlUrl] = crlUrls(certificate);
  if (crlUrl) return { kind: "crl", certificate, issuer, url: crlUrl };
  throw new RevocationError(
    `the certificate "${certificate.subject.replace(/\n/g, ", ")}" names no OCSP responder or CRL`,
  );
}

/** Checks an OCSP responder's answer (signed by the issuer or its delegate, "good" for this certificate). */
function checkOcsp(ask: Extract<Ask, { kind: "ocsp" }>, body: Buffer): { response: Buffer; responder: Buffer[] } {
  const { url, certificate, issuer, serialBytes, issuerNameHash } = ask;
  let root: Der;
  try {
    root = readWholeDer(body);
  } catch {
    throw new RevocationError(`${url}: not an OCSP response`);
  }
  const [statusNode, bytesNode] = root.children;
  const status = statusNode?.content;
  if (status?.length !== 1 || status[0] !== 0) throw new RevocationError(`${url}: OCSP status ${status?.[0]}`);
  const [typeNode, basicOctets] = childrenOf(childrenOf(bytesNode)[0]);
  if (oidOf(typeNode) !== OID.ocspBasic || !basicOctets) throw new RevocationError(`${url}: not a basic OCSP response`);
  let basic: Der[];
  try {
    basic = readWholeDer(basicOctets.content).children;
  } catch {
    throw new RevocationError(`${url}: not a basic OCSP response`);
  }
  const [tbs, sigAlg, sigBits, certsNode] = basic;
  if (!tbs) throw new RevocationError(`${url}: not an OCSP response`);
  const included = childrenOf(childrenOf(certsNode)[0]).map((c) => certificateOf(c.raw));
  // Signed by the issuer itself, or by a responder certificate the issuer gave id-kp-OCSPSigning.
  const signer = [
    issuer,
    ...included.filter((c) => isIssuedBy(c, issuer) && (c.keyUsage ?? []).includes(OCSP_SIGNING)),
  ].find((c) => verifyWith(sigAlg, tbs.raw, sigBits, c));
  if (!signer) throw new RevocationError(`${url}: the OCSP response's signature does not verify`);
  const responses = childrenOf(
    tbs.children.find((n) => n.tag === TAG.sequence && n.children.every((r) => r.tag === TAG.sequence)),
  );
  const mine = responses.find((r) => {
    const id = childrenOf(r.children[0]);
    return id[3]?.content.equals(serialBytes) && id[1]?.content.equals(issuerNameHash);
  });
  if (!mine) throw new RevocationError(`${url}: the OCSP response does not answer for this certificate`);
  const certStatus = mine.children[1];
  if (!isContextTag(certStatus, 0))
    throw new RevocationError(
      `${url}: the certificate "${certificate.subject.replace(/\n/g, ", ")}" is ${isContextTag(certStatus, 1) ? "revoked" : "unknown to its OCSP responder"}`,
    );
  return { response: body, responder: signer === issuer ? [] : [signer.raw] };
}

/**
 * The serial numbers (`serialKey`) on CRLs whose signature verified, by issuer
 * and the CRL's bytes. The same CRL comes back for every seal until the CA issues the next one,
 * and a CA's CRL can list many thousands of certificates: parsing and verifying it again for every
 * document would cost more than the seal. New bytes (the next CRL) are checked afresh.
 */
const checkedCrls = new Map<string, Set<string>>();
const CHECKED_CRLS_MAX = 32;

function revokedSerials(url: string, body: Buffer, issuer: X509Certificate): Set<string> {
  const key = `${issuer.fingerprint256} ${createHash("sha256").update(body).digest("hex")}`;
  const known = checkedCrls.get(key);
  if (known) return known;
  let list;
  try {
    list = readWholeDer(body).children;
  } catch {
    throw new RevocationError(`${url}: not a DER CRL`);
  }
  const [tbs, sigAlg, sigBits] = list;
  if (!tbs || !verifyWith(sigAlg, tbs.raw, sigBits, issuer))
    throw new RevocationError(`${url}: the CRL's signature does not verify`);
  const revoked = tbs.children.find(
    (n) =>
      n.tag === TAG.sequence && n.children.every((e) => e.tag === TAG.sequence && e.children[0]?.tag === TAG.integer),
  );
  const serials = new Set(childrenOf(revoked).map((entry) => serialKey(entry.children[0]!.content.toString("hex"))));
  if (checkedCrls.size >= CHECKED_CRLS_MAX) checkedCrls.clear();
  checkedCrls.set(key, serials);
  return serials;
}

/** Checks a CRL's signature and that the certificate is not on it. */
function checkCrl(ask: Ask, body: Buffer): Buffer {
  const { url, certificate, issuer } = ask;
  if (revokedSerials(url, body, issuer).has(serialKey(certificate.serialNumber)))
    throw new RevocationError(`the certificate "${certificate.subject.replace(/\n/g, ", ")}" is revoked (${url})`);
  return body;
}

/**
 * Chains and revocation data for the given end-entity certificates. A self-signed certificate is
 * a trust anchor and needs none; every other certificate needs an OCSP answer (AIA) or a CRL
 * (distribution points) — when it has neither, or none can be had, this throws.
 */
export async function collectValidationData(
  config: RevocationConfig,
  leaves: X509Certificate[],
  pool: X509Certificate[],
): Promise<ValidationData> {
  const data: ValidationData = { certificates: [], ocsps: [], crls: [], waitMs: 0 };
  const seen = new Set<string>();
  const add = (list: Buffer[], bytes: Buffer) => {
    const key = createHash("sha256").update(bytes).digest("hex");
    if (!seen.has(key)) {
      seen.add(key);
      list.push(bytes);
    }
  };
  const asks: Ask[] = [];
  const asked = new Set<string>();
  for (const leaf of leaves) {
    const chain = chainOf(leaf, pool);
    for (const c of chain) add(data.certificates, c.raw);
    for (let i = 0; i + 1 < chain.length; i++) {
      const certificate = chain[i]!;
      if (asked.has(certificate.fingerprint256)) continue;
      asked.add(certificate.fingerprint256);
      asks.push(askFor(certificate, chain[i + 1]!));
    }
  }
  // All asked at once: a seal waits for its slowest responder, not for the sum of them. The
  // answers are checked after the wait, which is then only the network's and the responders' time.
  const started = performance.now();
  const answers = await Promise.allSettled(asks.map((ask) => fetchRevocation(config, ask)));
  data.waitMs = performance.now() - started;
  asks.forEach((ask, i) => {
    const answer = answers[i]!;
    if (answer.status === "rejected") throw answer.reason;
    if (ask.kind === "crl") return add(data.crls, checkCrl(ask, answer.value));
    const { response, responder } = checkOcsp(ask, answer.value);
    add(data.ocsps, response);
    for (const r of responder) add(data.certificates, r);
  });
  return data;
}
