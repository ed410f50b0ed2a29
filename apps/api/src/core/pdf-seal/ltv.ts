/**
 * Long-term validation of sealed PDFs (PAdES B-LT and B-LTA, ETSI EN 319 142-1):
 *   - revocation data for every certificate of the seal's and the time stamps' chains
 *     (revocation.ts);
 *   - a DSS dictionary (certificates, OCSP responses, CRLs; a VRI entry per signature, keyed by
 *     the upper-case hex SHA-1 of its /Contents) as an incremental update;
 *   - a document time stamp (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161) over the whole file
 *     as a further incremental update.
 * Re-time-stamping repeats the last two for the newest time stamp, so a chain of time stamps
 * keeps the seal verifiable after each TSA certificate has expired.
 */
import { createHash, type X509Certificate } from "node:crypto";
import { PDFDict, PDFName, PDFNumber, PDFRef, PDFString } from "pdf-lib";
import type { Config } from "../../env";
import { certificateOf, OID, verifySignedData } from "./cms";
import { readDer } from "./der";
import { arrayOf, IncrementalPdf } from "./pdf-incremental";
import { signSealPlaceholder, type SigningIdentity } from "./pades";
import { collectValidationData, isSelfSigned, x509Of, type ValidationData } from "./revocation";
import { requestTimestamp, type Timestamp } from "./tsa";

/** The PAdES baseline levels a seal reaches (ETSI EN 319 142-1). */
export type PadesLevel = "B-B" | "B-T" | "B-LT" | "B-LTA";

type LtvConfig = Pick<Config, "tsa" | "outboundAllowHosts">;

/** Room for the document time stamp's token in /Contents, bytes. */
const DOC_TIMESTAMP_BYTES = 16_384;

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
 * holds, and a VRI entry for the signature whose /Contents is given. Returns the file with it,
 * ready for the document time stamp's update.
 */
export function addDss(pdf: IncrementalPdf, data: ValidationData, forSignature: Buffer): IncrementalPdf {
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
  return pdf.saveAndContinue();
}

/**
 * Appends a document time stamp over the whole file: an invisible signature field on the page of
 * the first signature, its /DocTimeStamp dictionary, and the RFC 3161 token in /Contents.
 */
export async function addDocumentTimestamp(
  config: LtvConfig,
  pdf: IncrementalPdf,
): Promise<{ pdf: Buffer; timestamp: Timestamp }> {
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
  const withDss = addDss(new IncrementalPdf(signed), data, contents[contents.length - 1]!);
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
  // /Contents is zero-padded after the DER: the token is its first element.
  const token = readDer(last).raw;
  const verified = verifySignedData(token);
  if (verified.contentType !== OID.tstInfo) throw new Error("the newest signature is not a document time stamp");
  const data = await collectValidationData(config, [verified.signer], verified.certificates.map(certificateOf));
  return addDocumentTimestamp(config, addDss(new IncrementalPdf(pdfBytes), data, last));
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
