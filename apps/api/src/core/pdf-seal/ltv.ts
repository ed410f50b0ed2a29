/**
 * Long-term validation of sealed PDFs (PAdES B-LT and B-LTA, ETSI EN 319 142-1):
 *   - revocation data for every certificate of the seal's and the time stamps' chains, fetched
 *     from the certificates' own pointers (AIA OCSP, else CRL distribution points) through the
 *     outbound guard, each answer checked (signed by the issuer or its delegated responder, the
 *     certificate not revoked);
 *   - a DSS dictionary (certificates, OCSP responses, CRLs; a VRI entry per signature, keyed by
 *     the upper-case hex SHA-1 of its /Contents) as an incremental update;
 *   - a document time stamp (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161) over the whole file
 *     as a further incremental update.
 * Re-time-stamping repeats the last two for the newest time stamp, so a chain of time stamps
 * keeps the seal verifiable after each TSA certificate has expired.
 */
import { createHash, verify as cryptoVerify, X509Certificate } from "node:crypto";
import forge from "node-forge";
import { PDFDict, PDFName, PDFNumber, PDFRef, PDFString } from "pdf-lib";
import type { Config } from "../../env";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import {
  algorithm,
  bytesOf,
  certificateOf,
  children,
  der,
  fromDer,
  isContext,
  OID,
  octets,
  oidOf,
  seq,
  SIGNATURE_DIGESTS,
  toBuffer,
  verifySignedData,
  U,
  T,
} from "./cms";
import { arrayOf, IncrementalPdf } from "./pdf-incremental";
import { signSealPlaceholder, type SigningIdentity } from "./pades";
import { requestTimestamp, type Timestamp } from "./tsa";

/** The PAdES baseline levels a seal reaches (ETSI EN 319 142-1). */
export type PadesLevel = "B-B" | "B-T" | "B-LT" | "B-LTA";

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

type LtvConfig = Pick<Config, "tsa" | "outboundAllowHosts">;

const REVOCATION_TIMEOUT_MS = 10_000;
const REVOCATION_MAX_BYTES = 4 * 1024 * 1024;
const OCSP_SIGNING = "1.3.6.1.5.5.7.3.9";
/** Room for the document time stamp's token in /Contents, bytes. */
const DOC_TIMESTAMP_BYTES = 16_384;

/** A node-forge certificate (as the signing identity holds them) for node:crypto. */
const converted = new WeakMap<forge.pki.Certificate, X509Certificate>();
export function x509Of(certificate: forge.pki.Certificate): X509Certificate {
  let x509 = converted.get(certificate);
  if (!x509)
    converted.set(certificate, (x509 = certificateOf(toBuffer(der(forge.pki.certificateToAsn1(certificate))))));
  return x509;
}

const isSelfSigned = memo((c) => c.subject === c.issuer && c.verify(c.publicKey));

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
  const tbs = children(children(fromDer(certificate.raw))[0]);
  const extensions = children(children(tbs.find((n) => isContext(n, 3)))[0]);
  const extension = extensions.find((e) => oidOf(children(e)[0]) === extensionOid);
  if (!extension) return [];
  const value = fromDer(bytesOf(children(extension)[children(extension).length - 1]));
  const uris: string[] = [];
  const walk = (node: forge.asn1.Asn1, inMethod: boolean) => {
    if (node.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && node.type === 6 && !node.constructed && inMethod)
      uris.push(bytesOf(node));
    else if (Array.isArray(node.value)) {
      const parts = node.value as forge.asn1.Asn1[];
      // AccessDescription: SEQUENCE { accessMethod OID, accessLocation GeneralName }
      const own = method && parts[0]?.type === T.OID && parts[0].tagClass === U ? oidOf(parts[0]) === method : inMethod;
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

async function fetchRevocation(
  config: LtvConfig,
  url: string,
  init: { method: string; body?: Buffer; contentType?: string; purpose: "ocsp" | "crl" },
  clock: { waitMs: number },
): Promise<Buffer> {
  const started = performance.now();
  try {
    const response = await guardedFetch(
      url,
      { allowHosts: config.outboundAllowHosts, allowPlainHttp: true },
      {
        method: init.method,
        body: init.body,
        headers: init.contentType ? { "content-type": init.contentType } : {},
        timeoutMs: REVOCATION_TIMEOUT_MS,
        maxBytes: REVOCATION_MAX_BYTES,
        purpose: init.purpose,
      },
    );
    if (response.status !== 200) throw new RevocationError(`${url} answered HTTP ${response.status}`);
    return response.body;
  } catch (error) {
    if (error instanceof RevocationError) throw error;
    throw new RevocationError(
      `${url}: ${error instanceof OutboundError ? `${error.reason}: ${error.message}` : String(error)}`,
    );
  } finally {
    clock.waitMs += performance.now() - started;
  }
}

const sha1 = (bytes: Buffer | string) =>
  createHash("sha1")
    .update(typeof bytes === "string" ? Buffer.from(bytes, "binary") : bytes)
    .digest();

/** SHA-1 of the subjectPublicKey bits of a certificate (the OCSP issuerKeyHash). */
const issuerKeyHash = memo((certificate) => {
  const spki = fromDer(certificate.publicKey.export({ type: "spki", format: "der" }));
  return sha1(toBuffer(bytesOf(children(spki)[1]).slice(1)));
});

function verifyWith(
  signatureAlgorithm: forge.asn1.Asn1 | undefined,
  signed: Buffer,
  signatureBits: forge.asn1.Asn1 | undefined,
  key: X509Certificate,
): boolean {
  const hash = SIGNATURE_DIGESTS[oidOf(children(signatureAlgorithm)[0])];
  if (!hash) return false;
  return cryptoVerify(hash, signed, key.publicKey, toBuffer(bytesOf(signatureBits).slice(1)));
}

/** Asks the certificate's OCSP responder; returns the checked OCSPResponse DER. */
async function ocspFor(
  config: LtvConfig,
  certificate: X509Certificate,
  issuer: X509Certificate,
  url: string,
  clock: { waitMs: number },
): Promise<{ response: Buffer; responder: Buffer[] }> {
  const serial = Buffer.from(
    certificate.serialNumber.length % 2 ? `0${certificate.serialNumber}` : certificate.serialNumber,
    "hex",
  );
  const serialBytes = serial[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), serial]) : serial;
  const issuerNameHash = sha1(toBuffer(der(issuerName(certificate))));
  const certId = seq([
    algorithm(OID.sha1),
    octets(issuerNameHash.toString("binary")),
    octets(issuerKeyHash(issuer).toString("binary")),
    forge.asn1.create(U, T.INTEGER, false, serialBytes.toString("binary")),
  ]);
  const request = toBuffer(der(seq([seq([seq([seq([certId])])])])));
  const body = await fetchRevocation(
    config,
    url,
    { method: "POST", body: request, contentType: "application/ocsp-request", purpose: "ocsp" },
    clock,
  );
  let root;
  try {
    root = fromDer(body);
  } catch {
    throw new RevocationError(`${url}: not an OCSP response`);
  }
  const [statusNode, bytesNode] = children(root);
  if (bytesOf(statusNode) !== "\x00")
    throw new RevocationError(`${url}: OCSP status ${bytesOf(statusNode).charCodeAt(0)}`);
  const [typeNode, basicOctets] = children(children(bytesNode)[0]);
  if (oidOf(typeNode) !== OID.ocspBasic) throw new RevocationError(`${url}: not a basic OCSP response`);
  const basic = children(fromDer(bytesOf(basicOctets)));
  const [tbs, sigAlg, sigBits, certsNode] = basic;
  const included = children(children(certsNode)[0]).map((c) => certificateOf(toBuffer(der(c))));
  const tbsBytes = toBuffer(der(tbs!));
  // Signed by the issuer itself, or by a responder certificate the issuer gave id-kp-OCSPSigning.
  const signer = [
    issuer,
    ...included.filter((c) => isIssuedBy(c, issuer) && (c.keyUsage ?? []).includes(OCSP_SIGNING)),
  ].find((c) => verifyWith(sigAlg, tbsBytes, sigBits, c));
  if (!signer) throw new RevocationError(`${url}: the OCSP response's signature does not verify`);
  const tbsFields = children(tbs);
  const responses = children(
    tbsFields.find((n) => n.tagClass === U && n.type === T.SEQUENCE && children(n).every((r) => r.type === T.SEQUENCE)),
  );
  const mine = responses.find((r) => {
    const id = children(children(r)[0]);
    return toBuffer(bytesOf(id[3])).equals(serialBytes) && toBuffer(bytesOf(id[1])).equals(issuerNameHash);
  });
  if (!mine) throw new RevocationError(`${url}: the OCSP response does not answer for this certificate`);
  const status = children(mine)[1];
  if (!isContext(status, 0))
    throw new RevocationError(
      `${url}: the certificate "${certificate.subject.replace(/\n/g, ", ")}" is ${isContext(status, 1) ? "revoked" : "unknown to its OCSP responder"}`,
    );
  return { response: body, responder: signer === issuer ? [] : [signer.raw] };
}

function issuerName(certificate: X509Certificate): forge.asn1.Asn1 {
  const tbs = children(children(fromDer(certificate.raw))[0]);
  return tbs[isContext(tbs[0], 0) ? 3 : 2]!;
}

/**
 * The serial numbers (upper-case hex, no leading zeros) on CRLs whose signature verified, by issuer
 * and the CRL's bytes. The same CRL comes back for every seal until the CA issues the next one,
 * and a CA's CRL can list many thousands of certificates: parsing and verifying it again for every
 * document would cost more than the seal. New bytes (the next CRL) are checked afresh.
 */
const checkedCrls = new Map<string, Set<string>>();
const CHECKED_CRLS_MAX = 32;

const serialKey = (hex: string) => hex.replace(/^0+/, "").toUpperCase();

function revokedSerials(url: string, body: Buffer, issuer: X509Certificate): Set<string> {
  const key = `${issuer.fingerprint256} ${createHash("sha256").update(body).digest("hex")}`;
  const known = checkedCrls.get(key);
  if (known) return known;
  let list;
  try {
    list = children(fromDer(body));
  } catch {
    throw new RevocationError(`${url}: not a DER CRL`);
  }
  const [tbs, sigAlg, sigBits] = list;
  if (!verifyWith(sigAlg, toBuffer(der(tbs!)), sigBits, issuer))
    throw new RevocationError(`${url}: the CRL's signature does not verify`);
  const revoked = children(tbs).find(
    (n) =>
      n.tagClass === U &&
      n.type === T.SEQUENCE &&
      children(n).every((e) => e.type === T.SEQUENCE && children(e)[0]?.type === T.INTEGER),
  );
  const serials = new Set(
    children(revoked).map((entry) => serialKey(toBuffer(bytesOf(children(entry)[0])).toString("hex"))),
  );
  if (checkedCrls.size >= CHECKED_CRLS_MAX) checkedCrls.clear();
  checkedCrls.set(key, serials);
  return serials;
}

/** Fetches the CRL, checks its signature and that the certificate is not on it. */
async function crlFor(
  config: LtvConfig,
  certificate: X509Certificate,
  issuer: X509Certificate,
  url: string,
  clock: { waitMs: number },
): Promise<Buffer> {
  const body = await fetchRevocation(config, url, { method: "GET", purpose: "crl" }, clock);
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
  config: LtvConfig,
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
  for (const leaf of leaves) {
    const chain = chainOf(leaf, pool);
    for (const c of chain) add(data.certificates, c.raw);
    for (let i = 0; i + 1 < chain.length; i++) {
      const certificate = chain[i]!;
      const issuer = chain[i + 1]!;
      const ocsp = ocspUrls(certificate);
      const crl = crlUrls(certificate);
      if (ocsp.length) {
        const { response, responder } = await ocspFor(config, certificate, issuer, ocsp[0]!, data);
        add(data.ocsps, response);
        for (const r of responder) add(data.certificates, r);
      } else if (crl.length) {
        add(data.crls, await crlFor(config, certificate, issuer, crl[0]!, data));
      } else {
        throw new RevocationError(
          `the certificate "${certificate.subject.replace(/\n/g, ", ")}" names no OCSP responder or CRL`,
        );
      }
    }
  }
  return data;
}

/** The /Contents bytes of each signature in the file, in file order (ByteRange gaps). */
export function signatureContents(pdf: Buffer): Buffer[] {
  const text = pdf.toString("latin1");
  const found: Buffer[] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)\s+\d+\s*\]/g)) {
    const start = Number(match[1]);
    const end = Number(match[2]);
    if (text[start] !== "<" || text[end - 1] !== ">") continue;
    found.push(Buffer.from(text.slice(start + 1, end - 1), "hex"));
  }
  return found;
}

/** The VRI key of a signature: upper-case hex SHA-1 of its /Contents bytes as stored. */
export const vriKey = (contents: Buffer) => createHash("sha1").update(contents).digest("hex").toUpperCase();

/**
 * Appends (or extends) the DSS: the validation data's streams, merged with what an earlier DSS
 * holds, and a VRI entry for the signature whose /Contents is given.
 */
export function addDss(pdfBytes: Buffer, data: ValidationData, forSignature: Buffer): Buffer {
  const pdf = new IncrementalPdf(pdfBytes);
  const catalog = (pdf.get(pdf.catalogRef) as PDFDict).clone(pdf.context);
  const old = pdf.resolve(catalog.get(PDFName.of("DSS")));
  const dss = old instanceof PDFDict ? old.clone(pdf.context) : PDFDict.withContext(pdf.context);
  const streams = (list: Buffer[]) => list.map((bytes) => pdf.addStream(bytes));
  const vri = PDFDict.withContext(pdf.context);
  for (const [key, vriKeyName, list] of [
    ["Certs", "Cert", data.certificates],
    ["OCSPs", "OCSP", data.ocsps],
    ["CRLs", "CRL", data.crls],
  ] as const) {
    const refs = streams(list);
    const all = arrayOf(pdf, dss, key);
    for (const ref of refs) all.push(ref);
    if (all.size()) dss.set(PDFName.of(key), all);
    if (refs.length) vri.set(PDFName.of(vriKeyName), pdf.context.obj(refs));
  }
  const vris = pdf.resolve(dss.get(PDFName.of("VRI")));
  const vriDict = vris instanceof PDFDict ? vris.clone(pdf.context) : PDFDict.withContext(pdf.context);
  vriDict.set(PDFName.of(vriKey(forSignature)), vri);
  dss.set(PDFName.of("VRI"), vriDict);
  const dssRef = pdf.allocate();
  pdf.set(dssRef, dss);
  catalog.set(PDFName.of("DSS"), dssRef);
  // ISO 32000-1 extension level of PAdES (ETSI EN 319 142-1, 5.4.1).
  catalog.set(
    PDFName.of("Extensions"),
    pdf.context.obj({ ESIC: { BaseVersion: PDFName.of("1.7"), ExtensionLevel: 5 } }),
  );
  pdf.set(pdf.catalogRef, catalog);
  return pdf.save();
}

/**
 * Appends a document time stamp over the whole file: an invisible signature field on the page of
 * the first signature, its /DocTimeStamp dictionary, and the RFC 3161 token in /Contents.
 */
export async function addDocumentTimestamp(
  config: LtvConfig,
  pdfBytes: Buffer,
): Promise<{ pdf: Buffer; timestamp: Timestamp }> {
  const pdf = new IncrementalPdf(pdfBytes);
  const catalog = (pdf.get(pdf.catalogRef) as PDFDict).clone(pdf.context);
  const acroFormEntry = catalog.get(PDFName.of("AcroForm"));
  const acroForm =
    (pdf.resolve(acroFormEntry) as PDFDict | undefined)?.clone(pdf.context) ?? PDFDict.withContext(pdf.context);
  const fields = arrayOf(pdf, acroForm, "Fields");
  const firstField = fields.size() ? (pdf.resolve(fields.get(0)) as PDFDict) : undefined;
  const pageRef = firstField?.get(PDFName.of("P"));
  if (!(pageRef instanceof PDFRef))
    throw new Error("the sealed PDF has no signature field to place the document time stamp beside");
  const page = (pdf.get(pageRef) as PDFDict).clone(pdf.context);
  const annots = arrayOf(pdf, page, "Annots");

  const fieldRef = pdf.allocate();
  const sigRef = pdf.allocate();
  const field = pdf.context.obj({
    Type: "Annot",
    Subtype: "Widget",
    FT: "Sig",
    F: 132,
    Rect: [0, 0, 0, 0],
    P: pageRef,
    V: sigRef,
  }) as PDFDict;
  field.set(PDFName.of("T"), PDFString.of(`Document time stamp ${fields.size()}`));
  pdf.set(fieldRef, field);
  fields.push(fieldRef);
  acroForm.set(PDFName.of("Fields"), fields);
  acroForm.set(PDFName.of("SigFlags"), PDFNumber.of(3));
  annots.push(fieldRef);
  page.set(PDFName.of("Annots"), annots);
  pdf.set(pageRef, page);
  if (acroFormEntry instanceof PDFRef) pdf.set(acroFormEntry, acroForm);
  else {
    catalog.set(PDFName.of("AcroForm"), acroForm);
    pdf.set(pdf.catalogRef, catalog);
  }
  const byteRangeSlot = "/ByteRange [0 0000000000 0000000000 0000000000]";
  pdf.set(
    sigRef,
    `<< /Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${byteRangeSlot} /Contents <${"0".repeat(DOC_TIMESTAMP_BYTES * 2)}> >>`,
  );
  const out = pdf.save();

  const slotAt = out.lastIndexOf(byteRangeSlot, undefined, "latin1");
  const contentsAt = out.indexOf("/Contents <", slotAt, "latin1") + "/Contents ".length;
  const contentsEnd = contentsAt + DOC_TIMESTAMP_BYTES * 2 + 2;
  const range = [0, contentsAt, contentsEnd, out.length - contentsEnd];
  const rangeText = `/ByteRange [${range.join(" ")}]`.padEnd(byteRangeSlot.length, " ");
  out.write(rangeText, slotAt, "latin1");
  const timestamp = await requestTimestamp(
    config,
    Buffer.concat([out.subarray(0, contentsAt), out.subarray(contentsEnd)]),
  );
  if (timestamp.token.length > DOC_TIMESTAMP_BYTES)
    throw new Error("the document time stamp does not fit its placeholder");
  out.write(timestamp.token.toString("hex"), contentsAt + 1, "latin1");
  return { pdf: out, timestamp };
}

export interface LongTermSeal {
  pdf: Buffer;
  level: PadesLevel;
  /** The document time stamp added (B-LTA). */
  documentTimestamp: Timestamp | null;
  /** When the newest time stamp's certificate expires: re-time-stamp before then. */
  timestampExpiresAt: Date | null;
  /** Milliseconds spent waiting for OCSP/CRL/TSA answers. */
  waitMs: number;
}

/**
 * B-T → B-LTA: DSS with the chains of the seal's certificate and of the signature time stamp's
 * TSA and their revocation data, then a document time stamp. A self-signed sealing certificate
 * (the development one) has no revocation data to give: the seal stays B-T. Otherwise every
 * failure (a responder down, a revoked certificate) throws: fail closed, the job retries.
 */
export async function extendToLongTerm(
  config: LtvConfig,
  signed: Buffer,
  sealChain: X509Certificate[],
  signatureTimestamp: Timestamp,
): Promise<LongTermSeal> {
  const sealCertificate = sealChain[0]!;
  if (isSelfSigned(sealCertificate))
    return { pdf: signed, level: "B-T", documentTimestamp: null, timestampExpiresAt: null, waitMs: 0 };
  const pool = [...sealChain, ...signatureTimestamp.certificates.map(certificateOf)];
  const data = await collectValidationData(config, [sealCertificate, signatureTimestamp.signer], pool);
  const contents = signatureContents(signed);
  const withDss = addDss(signed, data, contents[contents.length - 1]!);
  const { pdf, timestamp } = await addDocumentTimestamp(config, withDss);
  return {
    pdf,
    level: "B-LTA",
    documentTimestamp: timestamp,
    timestampExpiresAt: new Date(timestamp.signer.validTo),
    waitMs: data.waitMs + timestamp.waitMs,
  };
}

/**
 * A new document time stamp for a B-LTA file: the DSS gets the newest time stamp's chain and
 * revocation data (VRI keyed to that time stamp), then a new document time stamp covers it all.
 */
export async function retimestamp(config: LtvConfig, pdfBytes: Buffer): Promise<{ pdf: Buffer; timestamp: Timestamp }> {
  const contents = signatureContents(pdfBytes);
  const last = contents[contents.length - 1];
  if (!last) throw new Error("the PDF has no signature");
  // /Contents is zero-padded after the DER: read the token's own length.
  const token = toBuffer(der(fromDer(last.toString("binary").slice(0, derLength(last)))));
  const verified = verifySignedData(token);
  if (verified.contentType !== OID.tstInfo) throw new Error("the newest signature is not a document time stamp");
  const data = await collectValidationData(config, [verified.signer], verified.certificates.map(certificateOf));
  return addDocumentTimestamp(config, addDss(pdfBytes, data, last));
}

/** Length of the DER element at the start of the buffer (header + body). */
function derLength(bytes: Buffer): number {
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first;
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[2 + i]!;
  return 2 + count + length;
}

export interface Seal extends LongTermSeal {
  signatureTimestamp: Timestamp | null;
  /** The file as the seal signed it (B-B or B-T), a prefix of `pdf`. */
  sealRevision: Uint8Array;
}

/**
 * The seal of a prepared document at the highest level the configuration allows: B-B without a
 * TSA; with one, the signature time stamp (B-T) and, for a CA-issued certificate, validation
 * data and a document time stamp (B-LTA). Throws (nothing to store) when any step fails.
 */
export async function sealWithTime(config: LtvConfig, prepared: Uint8Array, identity: SigningIdentity): Promise<Seal> {
  let signatureTimestamp: Timestamp | null = null;
  const signed = await signSealPlaceholder(
    prepared,
    identity,
    config.tsa ? async (value) => (signatureTimestamp = await requestTimestamp(config, value)).token : undefined,
  );
  const stamp = signatureTimestamp as Timestamp | null;
  if (!stamp)
    return {
      pdf: signed,
      sealRevision: signed,
      level: "B-B",
      signatureTimestamp: null,
      documentTimestamp: null,
      timestampExpiresAt: null,
      waitMs: 0,
    };
  const longTerm = await extendToLongTerm(config, signed, identity.chain.map(x509Of), stamp);
  return { ...longTerm, sealRevision: signed, signatureTimestamp: stamp, waitMs: longTerm.waitMs + stamp.waitMs };
}

/** A time stamp as the metadata JSON names it (`seal.signature_timestamp`, `seal.document_timestamps`). */
export function timestampFacts(stamp: Timestamp, url: string) {
  return {
    gen_time: stamp.genTime.toISOString(),
    tsa: stamp.tsa,
    tsa_url: url,
    serial_number: stamp.serialNumber,
    policy: stamp.policy,
  };
}
