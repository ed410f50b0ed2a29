import { createRequire } from "node:module";
import AxeBuilder from "@axe-core/playwright";
import { expect, type BrowserContext, type Page } from "@playwright/test";
import { WEB_PORT } from "./support";

/** The seven patient languages (packages/contracts/src/languages.ts). */
export const PATIENT_LANGUAGES = ["de", "en", "tr", "ar", "ru", "uk", "pl"] as const;
export type PatientLanguage = (typeof PATIENT_LANGUAGES)[number];

/** Every rule the installed axe-core ships: default, best practice, AAA, experimental, deprecated. */
const require = createRequire(import.meta.url);
const axeCore = require(require.resolve("axe-core", { paths: [require.resolve("@axe-core/playwright")] })) as {
  getRules(): { ruleId: string }[];
};
export const ALL_AXE_RULES = axeCore.getRules().map((rule) => rule.ruleId);

/**
 * Experimental rules every axe run turns on beside axe's defaults, because each finds real faults
 * the defaults miss. label-content-name-mismatch: a control's accessible name contains the text it
 * shows (WCAG 2.5.3 Label in Name), so a voice-control user who says what they see reaches it.
 */
export const EXPERIMENTAL_AXE_RULES = ["label-content-name-mismatch"] as const;

/**
 * An axe run on the page, with the experimental rules above turned on: every spec's checks start here.
 * A page of one frame is checked in place ("legacy mode"): AxeBuilder's default opens a blank page
 * for each run to merge the frames' results, 0.8 s of a run's 1.2 to 2 s on a 2-core machine and a
 * third of the suite's axe time, for nothing to merge; the results were the same (violations, passes
 * and incomplete, node by node, compared on the patient and staff pages before runs kept only the
 * violations in full). A page with frames (an embedded form in its host page) keeps the default,
 * which also checks cross-origin frames.
 */
export function axeOn(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(page.frames().length === 1).options({
    rules: Object.fromEntries(EXPERIMENTAL_AXE_RULES.map((id) => [id, { enabled: true }])),
    // Only violations are read, and they keep every node: passes and the rest keep one node each,
    // not a selector for every element they matched, the costly end of a run (axe's documented
    // option; the patient pages in seven languages took 185 s instead of 211).
    resultTypes: ["violations"],
  });
}

/**
 * No axe violation at all, of any impact, with every rule axe ships turned on (experimental ones
 * included). The failure lists each violation with the elements it was found on.
 */
export async function expectAxeClean(page: Page, state: string): Promise<void> {
  const results = await axeOn(page).withRules(ALL_AXE_RULES).analyze();
  const report = results.violations
    .map(
      (v) =>
        `[${v.impact}] ${v.id}: ${v.help}\n${v.nodes.map((node) => `    ${node.target.join(" ")} — ${node.failureSummary?.replace(/\n/g, " ")}`).join("\n")}`,
    )
    .join("\n");
  if (report) console.log(`axe violations on ${state}:\n${report}`);
  // Soft: one run reports every state that fails, not only the first.
  expect
    .soft(
      results.violations.map((v) => v.id),
      `axe: violations on ${state}\n${report}`,
    )
    .toEqual([]);
}

/** The patient language for the next page (the `lang` cookie the language switch sets). */
export async function useLanguage(context: BrowserContext, lang: PatientLanguage): Promise<void> {
  await context.addCookies([{ name: "lang", value: lang, url: `http://localhost:${WEB_PORT}` }]);
}

/** The page came in `lang`: `<html lang dir>` say so (Arabic right to left). */
export async function expectPageLanguage(page: Page, lang: PatientLanguage): Promise<void> {
  await expect(page.locator("html")).toHaveAttribute("lang", lang);
  await expect(page.locator("html")).toHaveAttribute("dir", lang === "ar" ? "rtl" : "ltr");
}

/**
 * The two sizes every patient page is checked at: a 320 px wide phone (WCAG reflow) and a
 * 1280 × 800 desktop window at 200 % zoom (640 × 400 CSS pixels, two device pixels each).
 */
export const CHECKED_SIZES = [
  { name: "320 px", viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 },
  { name: "200 % zoom", viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 },
] as const;
