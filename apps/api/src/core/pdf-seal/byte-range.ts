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

/**
 * What reading a file that anyone may send (`/verify`) may cost: how many signatures are read and
 * how many bytes are decoded and hashed in all. Each signature's ranges may cover the whole file,
 * so without a cap a small file with many `/ByteRange`s costs its length times their number.
 */
export class SignatureReadBudget {
  private spent = 0;
  constructor(
    readonly maxSignatures: number,
    readonly maxBytes: number,
  ) {}

  spend(bytes: number): void {
    this.spent += bytes;
    if (this.spent > this.maxBytes)
      throw new SignatureLimitError(`reading its signatures needs more than ${this.maxBytes} bytes hashed`);
  }
}

/** The file's signatures cost more than the budget allows. */
export class SignatureLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SignatureLimitError";
  }
}

const BYTE_RANGE = Buffer.from("/ByteRange");
const RANGE = /^\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s*\]/;

/** Every signature's bytes; with a budget, more than its `maxSignatures` is a SignatureLimitError. */
export function findSignatureBytes(pdf: Uint8Array, budget?: SignatureReadBudget): SignatureBytes[] {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const found: SignatureBytes[] = [];
  for (let at = bytes.indexOf(BYTE_RANGE); at !== -1; at = bytes.indexOf(BYTE_RANGE, at + BYTE_RANGE.length)) {
    const match = RANGE.exec(bytes.subarray(at + BYTE_RANGE.length, at + BYTE_RANGE.length + 80).toString("latin1"));
    if (!match) continue;
    if (budget && found.length >= budget.maxSignatures)
      throw new SignatureLimitError(`the file has more than ${budget.maxSignatures} signatures`);
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
    if (wellFormed) budget?.spend(c - gapStart);
    const hex = wellFormed ? bytes.subarray(gapStart + 1, c - 1).toString("latin1") : "";
    const contents = /^[0-9a-fA-F\s]*$/.test(hex) ? Buffer.from(hex.replace(/\s+/g, ""), "hex") : Buffer.alloc(0);
    found.push({ at, range, contents, wellFormed: wellFormed && contents.length > 0 });
  }
  return found;
}

/**
 * The digest of the bytes a signature's ranges cover (what its CMS message digest must equal),
 * hashed range by range from the file (no copy of the content), counted against the budget.
 */
export function signedContentDigest(
  pdf: Uint8Array,
  range: SignatureBytes["range"],
  hash = "sha256",
  budget?: SignatureReadBudget,
): Buffer {
  const [a, b, c, d] = range;
  budget?.spend(b + d);
  return createHash(hash)
    .update(pdf.subarray(a, a + b))
    .update(pdf.subarray(c, c + d))
    .digest();
}

/** SHA-256 of the bytes a signature's ranges cover. */
export const signedContentSha256 = (pdf: Uint8Array, range: SignatureBytes["range"]): Buffer =>
  signedContentDigest(pdf, range);
