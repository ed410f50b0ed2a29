/**
 * Text in every patient language: typed names stamped into the signature field and the audit
 * page come back out of the PDF (pdftotext) as they went in.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fontkit from "@foliojs-fork/fontkit";
import { decodePDFRawStream, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { prepareSeal, type PrepareSealInput } from "../pdf-seal/seal-pdf";
import { makePdf } from "../../testing/signature-fixtures";
import { PageText } from "./page-text";
import { cleanText, PdfFonts } from "./pdf-text";

const hasPdftotext = spawnSync("pdftotext", ["-v"]).status === 0;
const work = mkdtempSync(join(tmpdir(), "pdf-text-"));
const FIELD = { page: 1, x: 100, y: 600, width: 300, height: 60 };

function sealInput(
  original: Uint8Array,
  typedName: string,
  extra: Partial<PrepareSealInput["facts"]> = {},
): PrepareSealInput {
  return {
    original,
    fields: [FIELD],
    png: null,
    typedName,
    facts: {
      title: "Einwilligung",
      signatureId: "sig-1",
      documentId: "doc-1",
      version: 1,
      signature: { kind: "typed", name: typedName },
      language: "en",
      clinicLanguage: "en",
      patientId: "P-1",
      institutionId: "clinic",
      orderBy: "dr.house",
      createdAt: new Date("2026-11-26T10:00:00Z"),
      openedAt: null,
      signedAt: new Date("2026-11-26T10:05:00Z"),
      ip: "127.0.0.1",
      userAgent: "test",
      originalSha256: "0".repeat(64),
      certificate: "CN=test",
      development: true,
      tsaHost: null,
      ...extra,
    },
    placeholder: { reason: "test", location: "test", contactInfo: "ClinSign", signingTime: new Date(), name: "test" },
  };
}

/** pdftotext of one page of a PDF, whitespace collapsed. */
function textOf(pdf: Uint8Array, page: number, name: string): string {
  const file = join(work, `${name}.pdf`);
  writeFileSync(file, pdf);
  const out = spawnSync("pdftotext", ["-f", String(page), "-l", String(page), file, "-"], { encoding: "utf8" });
  return out.stdout.replace(/\s+/g, " ").trim();
}

/**
 * Every embedded font's glyphs that are not blank by nature have an outline: a broken subset
 * (glyphs that extract as text but draw nothing) fails here.
 */
async function expectGlyphsDrawn(pdf: Uint8Array, blankChars: number): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const names: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of("Type")) !== PDFName.of("FontDescriptor")) continue;
    const ref = object.get(PDFName.of("FontFile2"));
    if (!(ref instanceof PDFRef)) continue;
    const stream = doc.context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) continue;
    const font = fontkit.create(Buffer.from(decodePDFRawStream(stream).decode()));
    const name = String(object.get(PDFName.of("FontName")));
    names.push(name);
    let blank = 0;
    // Glyph 0 is .notdef.
    for (let id = 1; id < font.numGlyphs; id++) if (font.getGlyph(id).path.bbox.width <= 0) blank++;
    expect(blank, name).toBeLessThanOrEqual(blankChars);
    expect(font.numGlyphs).toBeGreaterThan(2);
  }
  return names;
}

describe("typed names in any script", () => {
  const names = ["Ayşe Yılmaz", "Łukasz Żółć", "Олександр Шевченко", "Ірина Їжак"];
  it.skipIf(!hasPdftotext).each(names)("stamps %s so that it reads back as typed", async (name) => {
    const { stamped } = await prepareSeal(sealInput(await makePdf(), name));
    expect(textOf(stamped, 1, "ltr")).toContain(name);
    // The space is the one glyph without an outline.
    expect(await expectGlyphsDrawn(stamped, 1)).toEqual([expect.stringMatching(/NotoSans-Italic/)]);
  });

  it.skipIf(!hasPdftotext)("stamps an Arabic name with Arabic glyphs that read back as its letters", async () => {
    const name = "محمد";
    const { stamped } = await prepareSeal(sealInput(await makePdf(), name));
    const text = textOf(stamped, 1, "arabic");
    // pdftotext gives the letters (right to left, as shown); none became "?" or a missing glyph.
    expect(text).not.toContain("?");
    expect([...text].filter((c) => /[\u0600-\u06FF\uFE70-\uFEFF]/.test(c)).join("")).toMatch(/^(محمد|دمحم)$/);
    const fonts = spawnSync("pdffonts", [join(work, "arabic.pdf")], { encoding: "utf8" }).stdout;
    expect(fonts).toContain("NotoSansArabic");
    expect(await expectGlyphsDrawn(stamped, 0)).toEqual([expect.stringMatching(/NotoSansArabic/)]);
  });

  it("keeps Latin-1 names in the standard fonts: no font is embedded", async () => {
    const { stamped } = await prepareSeal(sealInput(await makePdf(), "Erika Müller"));
    expect(Buffer.from(stamped).toString("latin1")).not.toContain("FontFile2");
  });
});

describe("PdfFonts", () => {
  it("puts a mixed line into visual order: Arabic runs right to left, Latin left to right", async () => {
    const doc = await PDFDocument.create();
    const line = "محمد (Ali) 2026";
    const fonts = await PdfFonts.embed(doc, [{ role: "regular", texts: [line] }]);
    const shaped = fonts.shape(line, "regular", "rtl");
    expect(shaped.width).toBeGreaterThan(0);
    // Two fonts: Arabic for the name, Noto Sans for the rest.
    expect(new Set(shaped.runs.map((run) => run.font.name)).size).toBe(2);
    const page = doc.addPage([400, 100]);
    const text = new PageText(page);
    text.write(shaped, { x: 10, y: 50, size: 12 });
    text.finish(doc);
    if (hasPdftotext) {
      const out = textOf(await doc.save(), 1, "mixed");
      expect(out).toContain("Ali");
      expect(out).toContain("2026");
    }
  });

  it("drops bidi overrides and turns what no font has into ?", () => {
    expect(cleanText("A\u202Eevil\u202C")).toBe("Aevil");
    expect(cleanText("Ok 😀\u0007")).toBe("Ok ??");
  });

  it("keeps printable Latin-1 as it is, but for the soft hyphen, which is not drawn", () => {
    const latin1 = Array.from({ length: 0x100 }, (_, code) => String.fromCharCode(code))
      .filter((char) => (char >= " " && char <= "~") || char >= "\u00A0")
      .join("");
    expect(cleanText(latin1)).toBe(latin1.replace("\u00AD", ""));
    expect(cleanText("Müller\u00ADLüdenscheidt")).toBe("MüllerLüdenscheidt");
    // Decomposed, the same name is composed again (NFC), as every text is.
    expect(cleanText("Mu\u0308ller")).toBe("Müller");
  });

  it("wraps long text in any script within the width", async () => {
    const doc = await PDFDocument.create();
    const long = "Олександр ".repeat(30).trim();
    const fonts = await PdfFonts.embed(doc, [{ role: "regular", texts: [long] }]);
    const lines = fonts.wrap(long, "regular", 10, 200);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(fonts.shape(line, "regular").width * 10).toBeLessThanOrEqual(200.5);
    expect(lines.join(" ")).toBe(long);
  });
});

describe("the audit page in the signer's language", () => {
  /** pdftotext -bbox of the audit page: each word with its left and right edge. */
  function words(pdf: Uint8Array, name: string): { text: string; xMin: number; xMax: number; yMax: number }[] {
    const file = join(work, `${name}.pdf`);
    writeFileSync(file, pdf);
    const html = spawnSync("pdftotext", ["-bbox", "-f", "2", "-l", "2", file, "-"], { encoding: "utf8" }).stdout;
    return [
      ...html.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
    ].map((m) => ({ text: m[4]!, xMin: Number(m[1]), xMax: Number(m[2]), yMax: Number(m[3]) }));
  }

  it.skipIf(!hasPdftotext)("Turkish, with the clinic's German beside the labels", async () => {
    const { prepared } = await prepareSeal(
      sealInput(await makePdf(), "Ayşe Yılmaz", { language: "tr", clinicLanguage: "de" }),
    );
    const text = textOf(prepared, 2, "audit-tr");
    expect(text).toContain("İmza denetim kaydı");
    expect(text).toContain("Signaturprotokoll");
    expect(text).toContain("İmzalayan");
    expect(text).toContain("Ayşe Yılmaz (yazılan ad)");
    expect(text).toContain("Orijinalin SHA-256 değeri");
    expect(text).toContain("SHA-256 des Originals");
    expect(text).toContain("Bu sayfa, imza belgeye eklendikten sonra");
  });

  it.skipIf(!hasPdftotext)("Arabic, right to left: lines end at the right margin", async () => {
    const { prepared } = await prepareSeal(
      sealInput(await makePdf(), "محمد", { language: "ar", clinicLanguage: "de" }),
    );
    const text = textOf(prepared, 2, "audit-ar");
    expect(text).toContain("Signaturprotokoll");
    expect(text).toContain("0".repeat(64));
    // (Noto Sans Arabic draws some letters as a shared base glyph plus dots; the text of those
    // extracts as the first letter that used the base, so only words without them are compared.)
    for (const word of ["سجل", "المستند", "محمد"]) expect(text).toContain(word);
    const all = words(prepared, "audit-ar-bbox");
    const rightEdge = 595.28 - 56;
    // The title's first word (rightmost) ends at the right margin; the German label sits left of it.
    // The title's words (the first line, in Arabic letters) end at the right margin; the German
    // label sits left of them.
    const german = all.find((w) => w.text === "Signaturprotokoll")!;
    const firstLine = Math.min(...all.map((w) => w.yMax)) + 20;
    const title = all.filter((w) => /[\u0600-\u06FF]/.test(w.text) && w.yMax < firstLine);
    expect(title.length).toBeGreaterThan(0);
    expect(Math.abs(Math.max(...title.map((w) => w.xMax)) - rightEdge)).toBeLessThan(2);
    expect(german.xMax).toBeLessThan(Math.min(...title.map((w) => w.xMin)));
    // The hash (left to right inside the right-to-left page) is right-aligned too.
    const hash = all.find((w) => w.text === "0".repeat(64))!;
    expect(Math.abs(hash.xMax - rightEdge)).toBeLessThan(2);
  });

  it.skipIf(!hasPdftotext)("English when no language is known: the page as it always was", async () => {
    const { prepared } = await prepareSeal(sealInput(await makePdf(), "Erika Müller"));
    const text = textOf(prepared, 2, "audit-en");
    expect(text).toContain("Signature audit trail");
    expect(text).toContain("Erika Müller (typed name)");
    expect(text).not.toContain("Signaturprotokoll");
  });
});
