/**
 * What `/verify` reads from a dropped PDF: its signatures (coverage, digest, CMS signature,
 * timestamps), its DSS, and what incremental updates after the seal added. Runs only inside the
 * PDF worker (core/pdf-worker) under its memory and time limits: anyone can send this file. No
 * database or service imports here; verify.ts adds what the database knows.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRef, PDFStream, PDFRawStream, type PDFObject } from "pdf-lib";
import type { VerifyChanges } from "@clinsign/contracts";
import {
  findSignatureBytes,
  SignatureLimitError,
  SignatureReadBudget,
  signedContentDigest,
  type SignatureBytes,
} from "./byte-range";
import { checkSignedData, checkTimestampToken, type SignerCertificate } from "./cms-verify";

export interface InspectedSignature {
  kind: "signature" | "document_timestamp";
  range: SignatureBytes["range"];
  /** Where the revision it signs ends (c + d). */
  end: number;
  wellFormed: boolean;
  /** The CMS message digest (what was signed), hex: the request lookup's key. */
  messageDigest: string | null;
  digestMatches: boolean;
  signatureValid: boolean;
  signer: SignerCertificate | null;
  /** CMS signingTime, else the signature dictionary's /M: the signer's own claim. */
  claimedTime: string | null;
  /** RFC 3161 genTime: the signature timestamp (kind signature) or the document timestamp itself. */
  timestamp: { genTime: string; valid: boolean } | null;
}

export interface PdfInspection {
  isPdf: boolean;
  /** Why the file was not read to the end (more signatures or bytes to hash than the limits allow), or null. */
  overLimit: string | null;
  length: number;
  signatures: InspectedSignature[];
  /** The DSS of the final document: certificates and revocation entries, and whether a valid document timestamp covers it. */
  dss: { certificates: number; revocation: number; coveredByDocumentTimestamp: boolean } | null;
  /** What updates after the seal added besides DSS and document timestamps (null: not readable). */
  changes: VerifyChanges | null;
}

/** The signature dictionary's text around a /ByteRange: the object that holds it, /Contents left out. */
function dictionaryText(bytes: Buffer, signature: SignatureBytes): string {
  const [a, b, c] = signature.range;
  const start = Math.max(0, bytes.lastIndexOf("obj", signature.at), signature.at - 4096);
  const stop = bytes.indexOf("endobj", Math.max(signature.at, c));
  const end = stop === -1 ? Math.min(bytes.length, c + 4096) : stop;
  const gapStart = a + b;
  if (signature.wellFormed && gapStart > start && c < end)
    return bytes.subarray(start, gapStart).toString("latin1") + bytes.subarray(c, end).toString("latin1");
  return bytes.subarray(start, Math.min(end, signature.at + 4096)).toString("latin1");
}

/** A PDF date (D:YYYYMMDDHHmmSS+HH'mm') as ISO, or null. */
function pdfDate(text: string | undefined): string | null {
  const m = text && /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([Zz+-])(\d{2})?'?(\d{2})?'?)?/.exec(text);
  if (!m) return null;
  const utc = Date.UTC(
    Number(m[1]),
    Number(m[2] ?? 1) - 1,
    Number(m[3] ?? 1),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
  );
  const offset =
    m[7] === "+" || m[7] === "-" ? (m[7] === "+" ? 1 : -1) * (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0)) : 0;
  const date = new Date(utc - offset * 60_000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function inspectSignature(bytes: Buffer, signature: SignatureBytes, budget: SignatureReadBudget): InspectedSignature {
  const dict = dictionaryText(bytes, signature);
  const subFilter = /\/SubFilter\s*\/([A-Za-z0-9.#_-]+)/.exec(dict)?.[1] ?? "";
  const kind =
    subFilter === "ETSI.RFC3161" || /\/Type\s*\/DocTimeStamp/.test(dict) ? "document_timestamp" : "signature";
  const [, , c, d] = signature.range;
  const inspected: InspectedSignature = {
    kind,
    range: signature.range,
    end: c + d,
    wellFormed: signature.wellFormed,
    messageDigest: null,
    digestMatches: false,
    signatureValid: false,
    signer: null,
    claimedTime: pdfDate(/\/M\s*\((D:[^)]*)\)/.exec(dict)?.[1]),
    timestamp: null,
  };
  if (!signature.wellFormed) return inspected;
  // The ranges are hashed in place, once per hash algorithm asked for, each time on the budget.
  const digests = new Map<string, Buffer>();
  const content = (hash: string) => {
    let digest = digests.get(hash);
    if (!digest) digests.set(hash, (digest = signedContentDigest(bytes, signature.range, hash, budget)));
    return digest;
  };
  try {
    if (kind === "document_timestamp") {
      const checked = checkSignedData(signature.contents, null);
      const stamp = checkTimestampToken(signature.contents, content);
      Object.assign(inspected, {
        signer: checked.signer,
        signatureValid: checked.signatureValid && !!stamp?.valid,
        digestMatches: !!stamp?.valid,
      });
      inspected.messageDigest = content("sha256").toString("hex");
      if (stamp) inspected.timestamp = { genTime: stamp.genTime.toISOString(), valid: stamp.valid };
      return inspected;
    }
    const checked = checkSignedData(signature.contents, content);
    Object.assign(inspected, {
      messageDigest: checked.messageDigest,
      digestMatches: checked.digestMatches,
      signatureValid: checked.signatureValid,
      signer: checked.signer,
    });
    if (checked.signingTime) inspected.claimedTime = checked.signingTime.toISOString();
    if (checked.timestampToken && checked.signatureValue) {
      const stamp = checkTimestampToken(checked.timestampToken, checked.signatureValue);
      if (stamp) inspected.timestamp = { genTime: stamp.genTime.toISOString(), valid: stamp.valid };
    }
  } catch (error) {
    if (error instanceof SignatureLimitError) throw error;
    // Not a CMS we can read: the signature stays unverified.
  }
  return inspected;
}

const LOAD = { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false } as const;

interface Census {
  pages: PDFRef[];
  /** Annotations other than signature widgets, by ref (or by page and position when direct). */
  annotations: Set<string>;
  fields: Set<string>;
  signatureFields: Set<string>;
}

const keyOf = (value: PDFObject | undefined, fallback: string) =>
  value instanceof PDFRef ? value.toString() : fallback;

function census(doc: PDFDocument): Census {
  const pages = doc.getPages();
  const annotations = new Set<string>();
  pages.forEach((page, p) => {
    const annots = page.node.lookupMaybe(PDFName.of("Annots"), PDFArray);
    for (let i = 0; i < (annots?.size() ?? 0); i++) {
      const ref = annots!.get(i);
      const annot = doc.context.lookupMaybe(ref, PDFDict);
      const isSignatureWidget =
        annot?.get(PDFName.of("Subtype"))?.toString() === "/Widget" &&
        annot.get(PDFName.of("FT"))?.toString() === "/Sig";
      if (!isSignatureWidget) annotations.add(keyOf(ref, `${p}:${i}`));
    }
  });
  const fields = new Set<string>();
  const signatureFields = new Set<string>();
  const acroForm = doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict);
  const walk = (array: PDFArray | undefined, depth: number) => {
    for (let i = 0; i < (array?.size() ?? 0) && depth < 20; i++) {
      const ref = array!.get(i);
      const field = doc.context.lookupMaybe(ref, PDFDict);
      if (!field) continue;
      const kids = field.lookupMaybe(PDFName.of("Kids"), PDFArray);
      const key = keyOf(ref, `${depth}:${i}`);
      if (field.get(PDFName.of("FT"))?.toString() === "/Sig") signatureFields.add(key);
      else if (kids && kids.size() > 0 && doc.context.lookupMaybe(kids.get(0), PDFDict)?.has(PDFName.of("T")))
        walk(kids, depth + 1);
      else fields.add(key);
    }
  };
  walk(acroForm?.lookupMaybe(PDFName.of("Fields"), PDFArray), 0);
  return { pages: pages.map((page) => page.ref), annotations, fields, signatureFields };
}

/** Every indirect object reachable from `start`, not following /Parent or /P (back to the page tree). */
function reachable(doc: PDFDocument, start: PDFObject | undefined, into: Set<string>): void {
  const stack: PDFObject[] = start ? [start] : [];
  while (stack.length && into.size < 200_000) {
    const value = stack.pop()!;
    if (value instanceof PDFRef) {
      if (into.has(value.toString())) continue;
      into.add(value.toString());
      const target = doc.context.lookup(value);
      if (target) stack.push(target);
    } else if (value instanceof PDFDict || value instanceof PDFStream) {
      const dict = value instanceof PDFStream ? value.dict : value;
      for (const [key, child] of dict.entries())
        if (key.asString() !== "/Parent" && key.asString() !== "/P") stack.push(child);
    } else if (value instanceof PDFArray) {
      for (let i = 0; i < value.size(); i++) stack.push(value.get(i));
    }
  }
}

/** An object's content for comparison across revisions (a stream's bytes included). */
function serialise(value: PDFObject, leaveOut?: string): string {
  if (value instanceof PDFRawStream)
    return `${serialise(value.dict, leaveOut)}${Buffer.from(value.contents).toString("latin1")}`;
  if (value instanceof PDFDict && leaveOut) {
    const copy = value.clone();
    copy.delete(PDFName.of(leaveOut));
    return copy.toString();
  }
  return value.toString();
}

/** What the final document has that the sealed revision had not, besides DSS and document timestamps. */
function changesSince(sealed: PDFDocument, final: PDFDocument): VerifyChanges {
  const before = census(sealed);
  const after = census(final);
  const added = <T>(a: Set<T>, b: Set<T>) => [...b].filter((x) => !a.has(x));
  const newAnnotations = added(before.annotations, after.annotations);
  const newFields = added(before.fields, after.fields);
  const newPages = after.pages.filter(
    (ref) => !before.pages.some((old) => old === ref || old.toString() === ref.toString()),
  );

  // Objects that the counts above, the DSS or a (signature, timestamp) field already account for.
  const explained = new Set<string>();
  const catalog = final.context.trailerInfo.Root;
  if (catalog) explained.add(catalog.toString());
  reachable(final, final.catalog.get(PDFName.of("DSS")), explained);
  const acroForm = final.catalog.get(PDFName.of("AcroForm"));
  if (acroForm instanceof PDFRef) explained.add(acroForm.toString());
  for (const key of [...newAnnotations, ...newFields, ...added(before.signatureFields, after.signatureFields)]) {
    if (/^\d+ \d+ R$/.test(key))
      reachable(final, PDFRef.of(Number(key.split(" ")[0]), Number(key.split(" ")[1])), explained);
  }
  for (const ref of newPages) reachable(final, ref, explained);
  const info = final.context.trailerInfo.Info;
  if (info instanceof PDFRef) explained.add(info.toString());

  let other = 0;
  const pageKeys = new Set(after.pages.map((ref) => ref.toString()));
  for (const [ref, object] of final.context.enumerateIndirectObjects()) {
    const key = ref.toString();
    if (explained.has(key)) continue;
    if (object instanceof PDFStream && ["/XRef", "/ObjStm"].includes(String(object.dict.get(PDFName.of("Type")))))
      continue;
    const old = sealed.context.lookup(ref);
    if (!old) {
      // A new object nothing counted refers to is harmless unless something uses it: count it.
      other += 1;
      continue;
    }
    // A page that only gained annotations (counted above) is not another change.
    const leaveOut = pageKeys.has(key) ? "Annots" : undefined;
    if (serialise(old, leaveOut) !== serialise(object, leaveOut)) other += 1;
  }
  return {
    pagesAdded: Math.max(0, after.pages.length - before.pages.length),
    pagesRemoved: Math.max(0, before.pages.length - after.pages.length),
    annotationsAdded: newAnnotations.length,
    formFieldsAdded: newFields.length,
    signaturesAdded: 0,
    otherObjectsChanged: other,
  };
}

function dssOf(doc: PDFDocument): { certificates: number; revocation: number } | null {
  const dss = doc.catalog.lookupMaybe(PDFName.of("DSS"), PDFDict);
  if (!dss) return null;
  const size = (name: string) => dss.lookupMaybe(PDFName.of(name), PDFArray)?.size() ?? 0;
  return { certificates: size("Certs"), revocation: size("OCSPs") + size("CRLs") };
}

/** What `/verify` lets one file cost (Config["verify"]). */
export interface InspectionLimits {
  maxSignatures: number;
  maxHashedBytes: number;
}

export async function inspectSignedPdf(input: { bytes: Uint8Array; limits: InspectionLimits }): Promise<PdfInspection> {
  const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
  const head = bytes.subarray(0, 1024).toString("latin1");
  const inspection: PdfInspection = {
    isPdf: head.includes("%PDF-"),
    overLimit: null,
    length: bytes.length,
    signatures: [],
    dss: null,
    changes: null,
  };
  if (!inspection.isPdf) return inspection;
  const budget = new SignatureReadBudget(input.limits.maxSignatures, input.limits.maxHashedBytes);
  try {
    inspection.signatures = findSignatureBytes(bytes, budget)
      .map((signature) => inspectSignature(bytes, signature, budget))
      .sort((x, y) => x.end - y.end);
  } catch (error) {
    if (!(error instanceof SignatureLimitError)) throw error;
    return { ...inspection, overLimit: error.message };
  }
  const seal = inspection.signatures.find((s) => s.kind === "signature" && s.wellFormed);
  let final: PDFDocument | null = null;
  try {
    final = await PDFDocument.load(bytes, LOAD);
  } catch {
    return inspection;
  }
  const dss = dssOf(final);
  if (dss) {
    let covered = false;
    for (const stamp of inspection.signatures.filter(
      (s) => s.kind === "document_timestamp" && s.signatureValid && (!seal || s.end > seal.end),
    )) {
      const revision = await PDFDocument.load(bytes.subarray(0, stamp.end), LOAD).catch(() => null);
      if (revision && dssOf(revision)) covered = true;
    }
    inspection.dss = { ...dss, coveredByDocumentTimestamp: covered };
  }
  if (seal && seal.end <= bytes.length) {
    const sealed =
      seal.end === bytes.length ? final : await PDFDocument.load(bytes.subarray(0, seal.end), LOAD).catch(() => null);
    if (sealed) {
      try {
        const changes =
          sealed === final
            ? {
                pagesAdded: 0,
                pagesRemoved: 0,
                annotationsAdded: 0,
                formFieldsAdded: 0,
                signaturesAdded: 0,
                otherObjectsChanged: 0,
              }
            : changesSince(sealed, final);
        changes.signaturesAdded = inspection.signatures.filter(
          (s) => s.kind === "signature" && s.end > seal.end,
        ).length;
        inspection.changes = changes;
      } catch {
        // An object graph pdf-lib cannot walk: the changes stay unknown (verify.ts then goes by coverage).
      }
    }
  }
  return inspection;
}
