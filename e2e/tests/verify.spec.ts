import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { makeConsentPdf, startFileServer, type FileServer } from "./signing-support";
import { hasHorizontalScroll, shot, watchCspViolations, PATIENT_LANGUAGE_SWITCH } from "./support";
import { sealThroughSigningFlow, signedElsewhere, withByteChanged } from "./verify-support";

const FIELD = { page: 1, x: 60, y: 640, width: 240, height: 80 };

let files: FileServer;
let work: string;
const pdfs: Record<"sealed" | "changed" | "foreign" | "text" | "huge", string> = {
  sealed: "",
  changed: "",
  foreign: "",
  text: "",
  huge: "",
};

test.beforeAll(async ({ browser }) => {
  test.setTimeout(120_000);
  files = await startFileServer({ "/consent.pdf": await makeConsentPdf(FIELD) });
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-verify-"));
  const context = await browser.newContext({ locale: "en-GB" });
  const page = await context.newPage();
  const sealed = await sealThroughSigningFlow(page, context.request, files, FIELD);
  await context.close();
  const write = (name: string, bytes: Buffer) => {
    const path = join(work, name);
    writeFileSync(path, bytes);
    return path;
  };
  pdfs.sealed = write("sealed.pdf", sealed);
  pdfs.changed = write("changed.pdf", withByteChanged(sealed));
  pdfs.foreign = write("foreign.pdf", await signedElsewhere(work));
  pdfs.text = write("notes.pdf", Buffer.from("These are my notes, not a PDF at all.\n"));
  // 30 MB: refused on the page before a byte is sent (the API refuses it too, see verify.test.ts).
  const huge = Buffer.alloc(30 * 1024 * 1024, 0x20);
  huge.write("%PDF-1.7\n");
  pdfs.huge = write("scan.pdf", huge);
});
test.afterAll(async () => {
  await files?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const TEXTS = {
  en: {
    heading: "Check a sealed document",
    input: "PDF to check",
    another: "Check another file",
    intact: "Sealed by this service and unchanged",
    modified: "Changed after sealing",
    foreign: "Sealed elsewhere, unchanged",
    notPdf: "This file is not a PDF.",
    tooLarge: "The file is larger than 25 MB",
    claimed: "As stated by the sealer; no timestamp authority confirms it.",
    yes: "Yes",
  },
  de: {
    heading: "Versiegeltes Dokument prüfen",
    input: "Zu prüfendes PDF",
    another: "Weitere Datei prüfen",
    intact: "Von diesem Dienst versiegelt und unverändert",
    modified: "Nach dem Versiegeln verändert",
    foreign: "Anderswo versiegelt, unverändert",
    notPdf: "Diese Datei ist kein PDF.",
    tooLarge: "Die Datei ist größer als 25 MB",
    claimed: "Angabe der versiegelnden Stelle; kein Zeitstempeldienst bestätigt sie.",
    yes: "Ja",
  },
} as const;

async function choose(page: Page, lang: keyof typeof TEXTS, path: string) {
  await page.getByLabel(TEXTS[lang].input).setInputFiles(path);
}

async function result(page: Page, lang: keyof typeof TEXTS, title: string, name: string) {
  const heading = page.getByRole("heading", { level: 1, name: title });
  await expect(heading).toBeVisible({ timeout: 30_000 });
  await expect(heading).toBeFocused();
  await expectAccessible(page, `${name} (${lang})`);
  expect(await hasHorizontalScroll(page)).toBe(false);
}

for (const viewport of [
  { name: "phone", size: { width: 390, height: 844 } },
  { name: "desktop", size: { width: 1280, height: 800 } },
]) {
  for (const lang of ["en", "de"] as const) {
    test(`verify page (${viewport.name}, ${lang}): sealed, changed, sealed elsewhere, not a PDF, too large`, async ({
      page,
    }) => {
      test.setTimeout(120_000);
      const t = TEXTS[lang];
      await page.setViewportSize(viewport.size);
      const csp = watchCspViolations(page);
      // No staff session: the page is public.
      await page.goto("/verify");
      await page.getByRole("combobox", { name: PATIENT_LANGUAGE_SWITCH }).selectOption(lang);
      await expect(page.getByRole("heading", { level: 1, name: t.heading })).toBeVisible();
      await expectAccessible(page, `verify start (${lang})`);
      await shot(page, `verify-start-${viewport.name}-${lang}`);

      // The drop zone is a real file input: the keyboard reaches it.
      const input = page.getByLabel(t.input);
      for (let i = 0; i < 10 && !(await input.evaluate((el) => el === document.activeElement)); i++)
        await page.keyboard.press("Tab");
      await expect(input).toBeFocused();

      await choose(page, lang, pdfs.sealed);
      await result(page, lang, t.intact, "verify intact");
      await expect(page.getByText(t.claimed)).toBeVisible();
      await expect(page.getByText("CN=ClinSign development seal (not trusted)").first()).toBeVisible();
      await expect(page.getByText("B-B")).toBeVisible();
      await shot(page, `verify-intact-${viewport.name}-${lang}`);
      await page.getByRole("button", { name: t.another }).click();

      await choose(page, lang, pdfs.changed);
      await result(page, lang, t.modified, "verify modified");
      await shot(page, `verify-modified-${viewport.name}-${lang}`);
      await page.getByRole("button", { name: t.another }).click();

      await choose(page, lang, pdfs.foreign);
      await result(page, lang, t.foreign, "verify foreign");
      await expect(page.getByText("CN=Other Hospital Seal, O=Other Hospital").first()).toBeVisible();
      await shot(page, `verify-foreign-${viewport.name}-${lang}`);
      await page.getByRole("button", { name: t.another }).click();

      await choose(page, lang, pdfs.text);
      await expect(page.getByRole("alert").filter({ hasText: t.notPdf })).toBeVisible({ timeout: 30_000 });
      await expect(page.getByLabel(t.input)).toHaveAttribute("aria-invalid", "true");
      await expectAccessible(page, `verify not a PDF (${lang})`);
      await shot(page, `verify-not-pdf-${viewport.name}-${lang}`);

      await choose(page, lang, pdfs.huge);
      await expect(page.getByRole("alert").filter({ hasText: t.tooLarge })).toBeVisible();
      await shot(page, `verify-too-large-${viewport.name}-${lang}`);
      expect(csp).toEqual([]);
    });
  }
}
