import { describe, expect, it } from "vitest";
import { dataUrlImageSize, fitsPixelBudget, readImageSize } from "./image-header";

/** A PNG's signature and IHDR chunk (CRC not checked by the header reader), then `rest`. */
function pngHeader(width: number, height: number, rest: number[] = [], depth = 8, colour = 6): Uint8Array {
  const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  return new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...u32(13),
    0x49,
    0x48,
    0x44,
    0x52,
    ...u32(width),
    ...u32(height),
    depth,
    colour,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    ...rest,
  ]);
}

/** A JPEG's markers up to its frame header: SOI, APP0 (JFIF), a long APP1, DQT, then SOFn. */
function jpegHeader(width: number, height: number, sof = 0xc0): Uint8Array {
  const segment = (marker: number, body: number[]) => [
    0xff,
    marker,
    ((body.length + 2) >> 8) & 255,
    (body.length + 2) & 255,
    ...body,
  ];
  return new Uint8Array([
    0xff,
    0xd8,
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xe1, new Array<number>(700).fill(7)),
    0xff, // a fill byte before the next marker
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    ...segment(sof, [
      8,
      (height >> 8) & 255,
      height & 255,
      (width >> 8) & 255,
      width & 255,
      3,
      1,
      0x22,
      0,
      2,
      0x11,
      1,
      3,
      0x11,
      1,
    ]),
    0xff,
    0xda,
    0,
    2,
  ]);
}

const dataUrl = (format: string, bytes: Uint8Array) =>
  `data:image/${format};base64,${Buffer.from(bytes).toString("base64")}`;

describe("readImageSize", () => {
  it("reads a PNG's width and height from IHDR and a JPEG's from its frame header", () => {
    expect(readImageSize(pngHeader(640, 200))).toEqual({ format: "png", width: 640, height: 200 });
    expect(readImageSize(pngHeader(10000, 10000, [], 1, 0))).toEqual({ format: "png", width: 10000, height: 10000 });
    expect(readImageSize(jpegHeader(1200, 300))).toEqual({ format: "jpeg", width: 1200, height: 300 });
    expect(readImageSize(jpegHeader(65535, 65535, 0xc2))).toEqual({ format: "jpeg", width: 65535, height: 65535 });
  });

  it("refuses what is not a well-formed header", () => {
    const truncated = pngHeader(10, 10).subarray(0, 20);
    const notIhdr = pngHeader(10, 10);
    notIhdr[12] = 0x41;
    const badDepth = pngHeader(10, 10, [], 3);
    const noFrame = jpegHeader(10, 10, 0xc4); // DHT is not a frame: the scan starts before any size
    const deferredHeight = jpegHeader(10, 0);
    for (const bytes of [
      new Uint8Array(),
      truncated,
      notIhdr,
      badDepth,
      pngHeader(0, 10),
      noFrame,
      deferredHeight,
      jpegHeader(10, 10).subarray(0, 60),
      new TextEncoder().encode("<svg/>"),
    ]) {
      expect(readImageSize(bytes)).toBeNull();
    }
    // Endless fill bytes end the walk instead of stepping through them all.
    expect(readImageSize(new Uint8Array([0xff, 0xd8, ...new Array<number>(5000).fill(0xff)]))).toBeNull();
  });
});

describe("dataUrlImageSize", () => {
  it("reads the size from the base64 of a data URL, at any alignment of the header", () => {
    expect(dataUrlImageSize(dataUrl("png", pngHeader(300, 100, [1, 2, 3])))).toEqual({
      format: "png",
      width: 300,
      height: 100,
    });
    expect(dataUrlImageSize(dataUrl("jpeg", jpegHeader(1001, 333)))).toEqual({
      format: "jpeg",
      width: 1001,
      height: 333,
    });
    for (let extra = 0; extra < 3; extra++) {
      const shifted = jpegHeader(500 + extra, 250);
      const bytes = new Uint8Array([
        ...shifted.subarray(0, 20),
        ...new Array<number>(extra).fill(7),
        ...shifted.subarray(20),
      ]);
      // Lengthen APP0 by `extra` so the frame header moves across base64 groups.
      bytes[5] = bytes[5]! + extra;
      expect(dataUrlImageSize(dataUrl("jpeg", bytes))).toEqual({ format: "jpeg", width: 500 + extra, height: 250 });
    }
  });

  it("refuses other media types, bytes of another format than declared, and broken base64", () => {
    expect(dataUrlImageSize(dataUrl("jpeg", pngHeader(10, 10)))).toBeNull();
    expect(dataUrlImageSize(dataUrl("png", jpegHeader(10, 10)))).toBeNull();
    expect(dataUrlImageSize(dataUrl("svg+xml", new TextEncoder().encode("<svg/>")))).toBeNull();
    expect(dataUrlImageSize("data:image/png;base64,iVBO=Rw0KGgo")).toBeNull();
    expect(dataUrlImageSize("data:image/png,rawbytes")).toBeNull();
  });
});

describe("fitsPixelBudget", () => {
  it("holds each side to 4000 pixels and the whole to 4 megapixels", () => {
    expect(fitsPixelBudget({ width: 4000, height: 1000 })).toBe(true);
    expect(fitsPixelBudget({ width: 4001, height: 10 })).toBe(false);
    expect(fitsPixelBudget({ width: 10, height: 4001 })).toBe(false);
    expect(fitsPixelBudget({ width: 2001, height: 2000 })).toBe(false);
    expect(fitsPixelBudget({ width: 10000, height: 10000 })).toBe(false);
  });
});
