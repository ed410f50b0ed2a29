/**
 * The signatures of a PDF as bytes: each `/ByteRange [a b c d]` and the `/Contents` hex string
 * between its two ranges. Byte work only (no object parsing), so sealing can record the signed
 * content's digest and `/verify` can check coverage on the raw file, in the same way.
 */
import { createHash } from "node:crypto";

export interface SignatureBytes {
  /** Offset of the `/ByteRange` key (to order signatures and relate them to revisions). */
  at: number;
  range: [number, number, number, number];
  /** The DER of the CMS (the hex of /Contents decoded, padding included). */
  contents: Buffer;
  /** True when the ranges lie inside the file and leave out exactly the /Contents string. */
  wellFormed: boolean;
}

const BYTE_RANGE = Buffer.from("/ByteRange");
const RANGE = /^\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s*\]/;

export function findSignatureBytes(pdf: Uint8Array): SignatureBytes[] {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const found: SignatureBytes[] = [];
  for (let at = bytes.indexOf(BYTE_RANGE); at !== -1; at = bytes.indexOf(BYTE_RANGE, at + BYTE_RANGE.length)) {
    const match = RANGE.exec(bytes.subarray(at + BYTE_RANGE.length, at + BYTE_RANGE.length + 80).toString("latin1"));
    if (!match) continue;
    const range = match.slice(1, 5).map(Number) as [number, number, number, number];
    const [a, b, c, d] = range;
    const gapStart = a + b;
    const wellFormed =
      a === 0 &&
      b > 0 &&
      c > gapStart + 1 &&
      d >= 0 &&
      c + d <= bytes.length &&
      bytes[gapStart] === 0x3c &&
      bytes[c - 1] === 0x3e;
    const hex = wellFormed ? bytes.subarray(gapStart + 1, c - 1).toString("latin1") : "";
    const contents = /^[0-9a-fA-F\s]*$/.test(hex) ? Buffer.from(hex.replace(/\s+/g, ""), "hex") : Buffer.alloc(0);
    found.push({ at, range, contents, wellFormed: wellFormed && contents.length > 0 });
  }
  return found;
}

/** SHA-256 of the bytes a signature's ranges cover (what its CMS message digest must equal). */
export function signedContentSha256(pdf: Uint8Array, range: SignatureBytes["range"]): Buffer {
  const [a, b, c, d] = range;
  return createHash("sha256")
    .update(pdf.subarray(a, a + b))
    .update(pdf.subarray(c, c + d))
    .digest();
}
