/** The submission PDF prints answers in any script (issue 19). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layoutSubmissionPdf } from "./pdf-layout";

const hasPdftotext = spawnSync("pdftotext", ["-v"]).status === 0;

describe("layoutSubmissionPdf", () => {
  it.skipIf(!hasPdftotext)("prints answers in Turkish, Polish, Cyrillic and Arabic as they were given", async () => {
    const answers = {
      tr: "Ayşe Yılmaz, İstanbul",
      pl: "Łukasz Żółć, Gdańsk",
      ru: "Олександр Шевченко",
      ar: "محمد",
    };
    const pdf = await layoutSubmissionPdf({
      documentTitle: "Anamnese – Ayşe",
      createdAt: new Date("2026-11-26T10:00:00Z"),
      organizationName: "Klinik Nord",
      title: "Anamnese",
      facts: ["Eingereicht: 26.11.2026"],
      answers: [
        ...Object.entries(answers).map(([key, text]) => ({ label: `Name (${key})`, texts: [text] })),
        { label: "Notizen", texts: ["Zeile eins\nВторая строка"] },
      ],
      pageFooter: "Einreichung x  -  Seite {page} von {pages}",
      sha256: "a".repeat(64),
    });
    const file = join(mkdtempSync(join(tmpdir(), "submission-pdf-")), "s.pdf");
    writeFileSync(file, pdf);
    const text = spawnSync("pdftotext", [file, "-"], { encoding: "utf8" }).stdout;
    for (const answer of [answers.tr, answers.pl, answers.ru, "Zeile eins", "Вторая строка", "Klinik Nord"])
      expect(text).toContain(answer);
    expect(text).toContain("محمد");
    expect(text).not.toContain("?");
    expect(text).toContain("Seite 1 von 1");
  });
});
