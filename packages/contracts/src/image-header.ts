/**
 * The size of a PNG or JPEG read from its header (PNG IHDR, JPEG SOFn), without decoding a pixel.
 * A 12 KB PNG may declare 10000×10000 pixels, and whoever decodes it pays for every one of them,
 * so images patients send (signatures) are measured here and refused over a pixel budget before
 * anything decodes them. Pure: no node APIs (the form renderer in the browser runs it too).
 */

export type ImageFormat = "png" | "jpeg";

export interface ImageSize {
  format: ImageFormat;
  width: number;
  height: number;
}

/** What a signature image may measure: generous for a pad on any screen, cheap to decode. */
export const SIGNATURE_IMAGE_LIMITS = { maxSide: 4000, maxPixels: 4_000_000 } as const;

/** Reads `length` bytes at `offset`, or null past the end. */
type ByteReader = (offset: number, length: number) => Uint8Array | null;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IHDR = [0x49, 0x48, 0x44, 0x52];

const uint32 = (b: Uint8Array, at: number) =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const uint16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const startsWith = (b: Uint8Array, at: number, expected: number[]) => expected.every((value, i) => b[at + i] === value);

/** PNG: the signature, then the IHDR chunk first (length 13): width, height, bit depth, colour type. */
function readPng(read: ByteReader): ImageSize | null {
  const head = read(0, 26);
  if (!head || !startsWith(head, 0, PNG_MAGIC) || uint32(head, 8) !== 13 || !startsWith(head, 12, IHDR)) return null;
  const width = uint32(head, 16);
  const height = uint32(head, 20);
  // The PNG specification caps both at 2^31 - 1.
  if (width < 1 || height < 1 || width > 0x7fffffff || height > 0x7fffffff) return null;
  if (![1, 2, 4, 8, 16].includes(head[24]!) || ![0, 2, 3, 4, 6].includes(head[25]!)) return null;
  return { format: "png", width, height };
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic); C4, C8 and CC are not frames. */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

const MAX_JPEG_STEPS = 1000;

/** JPEG: walk the marker segments from SOI to the first SOFn, which holds the frame's height and width. */
function readJpeg(read: ByteReader): ImageSize | null {
  const soi = read(0, 2);
  if (!soi || soi[0] !== 0xff || soi[1] !== 0xd8) return null;
  let offset = 2;
  // A real JPEG has a few dozen segments before its frame header; fill bytes are as many steps.
  for (let step = 0; step < MAX_JPEG_STEPS; step++) {
    const marker = read(offset, 2);
    if (!marker || marker[0] !== 0xff) return null;
    if (marker[1] === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const code = marker[1]!;
    offset += 2;
    // Markers without a segment: TEM and the restart markers.
    if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) continue;
    // End of image or start of scan before any frame header: not an image we can measure.
    if (code === 0xd9 || code === 0xda || code === 0xd8) return null;
    const length = read(offset, 2);
    if (!length || uint16(length, 0) < 2) return null;
    if (isStartOfFrame(code)) {
      const frame = read(offset + 2, 5);
      if (!frame || uint16(length, 0) < 8) return null;
      const height = uint16(frame, 1);
      const width = uint16(frame, 3);
      // A height of 0 defers to a DNL marker after the first scan: refused rather than chased.
      return width >= 1 && height >= 1 ? { format: "jpeg", width, height } : null;
    }
    offset += uint16(length, 0);
  }
  return null;
}

/** The size of a PNG or JPEG in `bytes`, or null when it is neither or its header is malformed. */
export function readImageSize(bytes: Uint8Array): ImageSize | null {
  const read: ByteReader = (offset, length) =>
    offset + length <= bytes.length ? bytes.subarray(offset, offset + length) : null;
  return bytes[0] === 0x89 ? readPng(read) : readJpeg(read);
}

const BASE64_PAYLOAD = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/]*={0,2})$/;

/**
 * The declared format and the size read from the header of a `data:image/png|jpeg;base64,` URL.
 * Only the base64 around each header field is decoded, never the whole image. Null when the URL is
 * not such a data URL, the bytes are not a well-formed PNG or JPEG header, or they are not the
 * format the URL declares.
 */
export function dataUrlImageSize(dataUrl: string): ImageSize | null {
  const match = BASE64_PAYLOAD.exec(dataUrl);
  if (!match) return null;
  const base64 = match[2]!;
  const read: ByteReader = (offset, length) => {
    const from = Math.floor(offset / 3) * 4;
    const to = Math.ceil((offset + length) / 3) * 4;
    if (to > base64.length) return null;
    let binary: string;
    try {
      binary = atob(base64.slice(from, to));
    } catch {
      return null;
    }
    const skip = offset - (from / 4) * 3;
    if (binary.length < skip + length) return null;
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = binary.charCodeAt(skip + i);
    return out;
  };
  const size = match[1] === "png" ? readPng(read) : readJpeg(read);
  return size?.format === match[1] ? size : null;
}

/** Does an image fit the budget: each side at most `maxSide`, and at most `maxPixels` in all? */
export function fitsPixelBudget(
  size: Pick<ImageSize, "width" | "height">,
  limits: { maxSide: number; maxPixels: number } = SIGNATURE_IMAGE_LIMITS,
): boolean {
  return size.width <= limits.maxSide && size.height <= limits.maxSide && size.width * size.height <= limits.maxPixels;
}
