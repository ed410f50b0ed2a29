/**
 * Incremental updates of sealed PDFs: new and changed objects appended after the last %%EOF with
 * their own xref section (/Prev to the one before), the earlier bytes untouched, so every earlier
 * signature still covers exactly what it signed. Reads only what it needs: the xref tables (the
 * files the service seals are written by pdf-lib without object streams, and every update here
 * adds a classic table) and the few objects it changes, each parsed by pdf-lib's object parser.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRef, type PDFObject } from "pdf-lib";

const latin1 = (bytes: Buffer, start: number, end: number) => bytes.toString("latin1", start, end);

/** Where a file's objects are, from its xref chain: the newest definition of each, and its trailer. */
interface Xref {
  /** Object number → byte offset of its newest definition. */
  offsets: Map<number, number>;
  trailer: PDFDict;
  startxref: number;
}

export class IncrementalPdf {
  readonly context = PDFContext.create();
  private readonly offsets: Map<number, number>;
  private readonly trailer: PDFDict;
  private readonly startxref: number;
  private size: number;
  private readonly added = new Map<number, Buffer>();

  /** `xref` when it is known already (`saveAndContinue`): otherwise it is read from the file. */
  constructor(
    readonly bytes: Buffer,
    xref?: Xref,
  ) {
    ({ offsets: this.offsets, trailer: this.trailer, startxref: this.startxref } = xref ?? this.readXref());
    this.size = (this.trailer.get(PDFName.of("Size")) as PDFNumber).asNumber();
  }

  private readXref(): Xref {
    const tail = latin1(this.bytes, Math.max(0, this.bytes.length - 1024), this.bytes.length);
    const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
    if (!match) throw new Error("the PDF does not end with startxref/%%EOF");
    const startxref = Number(match[1]);
    const offsets = new Map<number, number>();
    let trailer: PDFDict | undefined;
    const seen = new Set<number>();
    for (let at: number | undefined = startxref; at !== undefined && !seen.has(at);) {
      seen.add(at);
      const section = this.readXrefSection(at, offsets);
      trailer ??= section;
      const prev = section.get(PDFName.of("Prev"));
      at = prev instanceof PDFNumber ? prev.asNumber() : undefined;
    }
    return { offsets, trailer: trailer!, startxref };
  }

  /** One xref section's entries (those not defined by a newer one) into `offsets`; its trailer. */
  private readXrefSection(at: number, offsets: Map<number, number>): PDFDict {
    const end = this.bytes.indexOf("trailer", at, "latin1");
    if (latin1(this.bytes, at, at + 4) !== "xref" || end < 0) throw new Error("only classic xref tables are supported");
    const tokens = latin1(this.bytes, at + 4, end)
      .trim()
      .split(/\s+/);
    for (let i = 0; i < tokens.length;) {
      const start = Number(tokens[i]);
      const count = Number(tokens[i + 1]);
      i += 2;
      for (let n = 0; n < count; n++, i += 3) {
        // Older sections are read after newer ones: the first definition seen is the newest.
        if (tokens[i + 2] === "n" && !offsets.has(start + n)) offsets.set(start + n, Number(tokens[i]));
      }
    }
    const trailer = PDFObjectParser.forBytes(this.bytes.subarray(end + 7), this.context).parseObject();
    if (!(trailer instanceof PDFDict)) throw new Error("the trailer is not a dictionary");
    return trailer;
  }

  /** The newest version of an indirect object (not streams). */
  get(ref: PDFRef): PDFObject {
    const offset = this.offsets.get(ref.objectNumber);
    if (offset === undefined) throw new Error(`object ${ref.objectNumber} is not in the xref`);
    const header = /^\s*\d+\s+\d+\s+obj/.exec(latin1(this.bytes, offset, offset + 40));
    if (!header) throw new Error(`object ${ref.objectNumber} is not where the xref says`);
    return PDFObjectParser.forBytes(this.bytes.subarray(offset + header[0].length), this.context).parseObject();
  }

  /** A reference resolved, or the direct object itself. */
  resolve(object: PDFObject | undefined): PDFObject | undefined {
    return object instanceof PDFRef ? this.get(object) : object;
  }

  get catalogRef(): PDFRef {
    return this.trailer.get(PDFName.of("Root")) as PDFRef;
  }

  /** A fresh object number for this update. */
  allocate(): PDFRef {
    return PDFRef.of(this.size++);
  }

  /** Sets (or replaces) an object in this update. */
  set(ref: PDFRef, object: PDFObject | string): void {
    this.added.set(
      ref.objectNumber,
      Buffer.from(`${ref.objectNumber} 0 obj\n${object.toString()}\nendobj\n`, "latin1"),
    );
  }

  /** A stream object with the given bytes (stored as they are). */
  addStream(bytes: Buffer): PDFRef {
    const ref = this.allocate();
    this.added.set(
      ref.objectNumber,
      Buffer.concat([
        Buffer.from(`${ref.objectNumber} 0 obj\n<< /Length ${bytes.length} >>\nstream\n`, "latin1"),
        bytes,
        Buffer.from("\nendstream\nendobj\n", "latin1"),
      ]),
    );
    return ref;
  }

  /** The file with this update appended: objects, an xref section and a trailer with /Prev. */
  save(): Buffer {
    return this.write().bytes;
  }

  /**
   * The file with this update appended, ready for the next update: its xref is this one's plus
   * what was just written, so the file is not read again.
   */
  saveAndContinue(): IncrementalPdf {
    const { bytes, xref } = this.write();
    return new IncrementalPdf(bytes, xref);
  }

  private write(): { bytes: Buffer; xref: Xref } {
    const parts: Buffer[] = [this.bytes];
    let offset = this.bytes.length;
    if (this.bytes[this.bytes.length - 1] !== 0x0a) {
      parts.push(Buffer.from("\n"));
      offset += 1;
    }
    const entries = [...this.added.keys()].sort((a, b) => a - b);
    const offsets = new Map(this.offsets);
    for (const number of entries) {
      offsets.set(number, offset);
      const body = this.added.get(number)!;
      parts.push(body);
      offset += body.length;
    }
    const xrefAt = offset;
    let xref = "xref\n";
    for (let i = 0; i < entries.length;) {
      let j = i;
      while (j + 1 < entries.length && entries[j + 1] === entries[j]! + 1) j++;
      xref += `${entries[i]} ${j - i + 1}\n`;
      for (let k = i; k <= j; k++) xref += `${String(offsets.get(entries[k]!)).padStart(10, "0")} 00000 n\r\n`;
      i = j + 1;
    }
    const trailer = PDFDict.withContext(this.context);
    trailer.set(PDFName.of("Size"), PDFNumber.of(this.size));
    trailer.set(PDFName.of("Root"), this.catalogRef);
    for (const key of ["Info", "ID"]) {
      const value = this.trailer.get(PDFName.of(key));
      if (value) trailer.set(PDFName.of(key), value);
    }
    trailer.set(PDFName.of("Prev"), PDFNumber.of(this.startxref));
    parts.push(Buffer.from(`${xref}trailer\n${trailer.toString()}\nstartxref\n${xrefAt}\n%%EOF\n`, "latin1"));
    return { bytes: Buffer.concat(parts), xref: { offsets, trailer, startxref: xrefAt } };
  }
}

/** An array entry of a dictionary as a mutable copy (direct or behind a reference). */
export function arrayOf(pdf: IncrementalPdf, dict: PDFDict, key: string): PDFArray {
  const value = pdf.resolve(dict.get(PDFName.of(key)));
  const copy = PDFArray.withContext(pdf.context);
  if (value instanceof PDFArray) for (let i = 0; i < value.size(); i++) copy.push(value.get(i));
  return copy;
}
