/**
 * DER (and BER's indefinite lengths) read straight from the bytes: every element keeps its own
 * bytes, a view into the buffer it came from. What was signed (signed attributes, a token, a
 * certificate, an OCSP response's or a CRL's tbs part) is hashed and verified exactly as it was
 * encoded, and a time stamp's token goes into the seal as the TSA sent it; a decode-and-re-encode
 * round trip promises neither, and cost the seal more than the checks themselves (node-forge
 * copies every element into a binary string). Used by the seal's checks (cms.ts, tsa.ts,
 * revocation.ts) and by /verify (cms-verify.ts). Building DER: `derElement`, and forge in cms.ts.
 */

export interface Der {
  tag: number;
  /** The whole element (header and content). */
  raw: Buffer;
  content: Buffer;
  children: Der[];
}

const MAX_DEPTH = 40;

function readOne(bytes: Buffer, offset: number, depth: number): Der {
  if (depth > MAX_DEPTH) throw new Error("DER nesting too deep");
  const tag = bytes[offset];
  if (tag === undefined || (tag & 0x1f) === 0x1f) throw new Error("unsupported DER tag");
  let length = bytes[offset + 1];
  if (length === undefined) throw new Error("truncated DER");
  if (length === 0x80) return readIndefinite(bytes, offset, tag, depth);
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count > 4) throw new Error("unsupported DER length");
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i]!;
    header += count;
  }
  const end = offset + header + length;
  if (end > bytes.length) throw new Error("truncated DER");
  const content = bytes.subarray(offset + header, end);
  const children: Der[] = [];
  if (tag & 0x20) {
    for (let at = 0; at < content.length;) {
      const child = readOne(content, at, depth + 1);
      children.push(child);
      at += child.raw.length;
    }
  }
  return { tag, raw: bytes.subarray(offset, end), content, children };
}

/**
 * A BER constructed element of indefinite length (some PKCS#12 and CMS writers use them): its
 * children up to the end-of-contents octets; `content` is what lies between header and those.
 */
function readIndefinite(bytes: Buffer, offset: number, tag: number, depth: number): Der {
  if (!(tag & 0x20)) throw new Error("indefinite length of a primitive element");
  const children: Der[] = [];
  let at = offset + 2;
  while (!(bytes[at] === 0 && bytes[at + 1] === 0)) {
    if (at >= bytes.length) throw new Error("truncated DER");
    const child = readOne(bytes, at, depth + 1);
    children.push(child);
    at += child.raw.length;
  }
  return { tag, raw: bytes.subarray(offset, at + 2), content: bytes.subarray(offset + 2, at), children };
}

/** The value of an OCTET STRING, also in BER's constructed form (its pieces joined). */
export function octetsOf(node: Der): Buffer {
  if (node.tag === 0x04) return node.content;
  if (node.tag === 0x24) return Buffer.concat(node.children.map(octetsOf));
  throw new Error("not an OCTET STRING");
}

/** The first DER element of `bytes` (trailing bytes, e.g. a /Contents string's zero padding, ignored). */
export const readDer = (bytes: Buffer): Der => readOne(bytes, 0, 0);

export function oidOf(node: Der | undefined): string {
  if (!node || node.tag !== 0x06) return "";
  const bytes = node.content;
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join(".");
}

/** `readDer`, and nothing may follow the element: a reply with bytes after its end is not that reply. */
export function readWholeDer(bytes: Buffer): Der {
  const node = readDer(bytes);
  if (node.raw.length !== bytes.length) throw new Error("bytes remain after the DER element");
  return node;
}

/** Whether the element and all within it have definite lengths (are DER's, not BER's indefinite form). */
export const isDefinite = (node: Der): boolean => node.raw[1] !== 0x80 && node.children.every(isDefinite);

export const TAG = {
  integer: 0x02,
  octetString: 0x04,
  oid: 0x06,
  sequence: 0x30,
  set: 0x31,
} as const;

/** A context-specific element [n], primitive or constructed. */
export const isContextTag = (node: Der | undefined, n: number): boolean =>
  node !== undefined && (node.tag & 0xc0) === 0x80 && (node.tag & 0x1f) === n;

/** One DER element: the identifier octet, the length, the contents. */
export function derElement(tag: number, ...contents: Buffer[]): Buffer {
  const length = contents.reduce((sum, part) => sum + part.length, 0);
  const digits: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) digits.unshift(rest % 256);
  const lengthOctets = length < 0x80 ? [length] : [0x80 | digits.length, ...digits];
  return Buffer.concat([Buffer.from([tag, ...lengthOctets]), ...contents]);
}

/** The elements of a constructed element; none for a primitive or missing one. */
export const childrenOf = (node: Der | undefined): Der[] => node?.children ?? [];
