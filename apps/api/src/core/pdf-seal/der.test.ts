import { describe, expect, it } from "vitest";
import { der, octets, seq, toBuffer } from "./cms";
import { childrenOf, derElement, isDefinite, readDer, readWholeDer } from "./der";

describe("derElement", () => {
  it("encodes lengths in short and long form as forge does, and reads back to the same contents", () => {
    for (const size of [0, 1, 127, 128, 255, 256, 300, 65_535, 70_000]) {
      const contents = Buffer.alloc(size, 0xab);
      const encoded = derElement(0x04, contents);
      expect(encoded.equals(toBuffer(der(octets(contents.toString("binary")))))).toBe(true);
      expect(readWholeDer(encoded).content.equals(contents)).toBe(true);
    }
  });
});

describe("readDer", () => {
  const element = derElement(0x30, derElement(0x04, Buffer.from("a")), derElement(0x04, Buffer.from("bc")));

  it("keeps each element's bytes as they were in the input", () => {
    const node = readWholeDer(element);
    expect(node.raw.equals(element)).toBe(true);
    expect(childrenOf(node).map((child) => child.content.toString())).toEqual(["a", "bc"]);
    expect(node.children[1]!.raw.equals(toBuffer(der(seq([octets("bc")])).slice(2)))).toBe(true);
  });

  it("reads the first element of zero-padded bytes (a /Contents string); readWholeDer refuses what follows", () => {
    const padded = Buffer.concat([element, Buffer.alloc(16)]);
    expect(readDer(padded).raw.equals(element)).toBe(true);
    expect(() => readWholeDer(padded)).toThrow(/remain/);
  });

  it("reads BER's indefinite lengths and says they are not DER", () => {
    const ber = Buffer.concat([Buffer.from([0x30, 0x80]), element.subarray(2), Buffer.from([0, 0])]);
    const node = readWholeDer(ber);
    expect(childrenOf(node).map((child) => child.content.toString())).toEqual(["a", "bc"]);
    expect(isDefinite(node)).toBe(false);
    expect(isDefinite(readWholeDer(element))).toBe(true);
  });

  it("refuses truncated input, lengths past the end and nesting deeper than any certificate", () => {
    expect(() => readDer(element.subarray(0, element.length - 1))).toThrow(/truncated/);
    expect(() => readDer(Buffer.from([0x04, 0x84, 0xff, 0xff, 0xff, 0xff]))).toThrow(/truncated/);
    let deep: Buffer = Buffer.from([0x05, 0x00]);
    for (let i = 0; i < 100; i++) deep = derElement(0x30, deep);
    expect(() => readDer(deep)).toThrow(/too deep/);
  });
});
