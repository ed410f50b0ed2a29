import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Page } from "@playwright/test";

/**
 * LHC-Forms (npm `lforms`, the NLM's SDC renderer) in the browser, for checking that another FHIR
 * tool reads what ClinSign exports. The page loads the package's built files as its README lists
 * them; nothing comes from a network.
 */

/** A QuestionnaireResponse item as LHC-Forms and ClinSign write it (the parts the tests read). */
export interface ResponseItem {
  linkId: string;
  answer?: { valueDecimal?: number; valueCoding?: { code: string } }[];
  item?: ResponseItem[];
}

export interface QuestionnaireResponse {
  resourceType: "QuestionnaireResponse";
  item?: ResponseItem[];
}

/** What the tests call of LHC-Forms' global `LForms` (dist/lforms/webcomponent and fhir/R4). */
interface LForms {
  Util: {
    addFormToPage(form: unknown, container: HTMLElement, options: { fhirVersion: "R4" }): Promise<void>;
    getFormFHIRData(type: "QuestionnaireResponse", version: "R4", container: HTMLElement): QuestionnaireResponse;
  };
  FHIR?: { R4?: unknown };
}

declare global {
  interface Window {
    LForms?: LForms;
  }
}

/** The package's built files: `webcomponent/` and `fhir/`. */
const LFORMS_DIST = join(dirname(createRequire(import.meta.url).resolve("lforms/package.json")), "dist", "lforms");

/** A made-up origin that page.route answers from LFORMS_DIST (`.test` never resolves, so nothing leaks). */
export const LHC_FORMS_ORIGIN = "http://lhc-forms.test";

/** The element the form is rendered into. */
const FORM_CONTAINER = "questionnaire";

/**
 * The README's files in its order: styles, zone, the web component, then the R4 FHIR support.
 * The charset matters: the FHIR support's FHIRPath parser holds its grammar in non-ASCII
 * characters, which a page read as windows-1252 garbles ("Could not deserialize ATN").
 */
const HOST_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>LHC-Forms</title>
    <link rel="stylesheet" href="/webcomponent/styles.css">
  </head>
  <body>
    <main id="${FORM_CONTAINER}"></main>
    <script src="/webcomponent/assets/lib/zone.min.js"></script>
    <script src="/webcomponent/runtime.js" type="module"></script>
    <script src="/webcomponent/polyfills.js" type="module"></script>
    <script src="/webcomponent/main.js" type="module"></script>
    <script src="/fhir/R4/lformsFHIR.min.js" defer></script>
  </body>
</html>`;

/** Opens the LHC-Forms page and waits until its web component and R4 support are loaded. */
export async function openLhcForms(page: Page): Promise<void> {
  await page.route(`${LHC_FORMS_ORIGIN}/**`, (route) => {
    const { pathname } = new URL(route.request().url());
    if (pathname === "/") return route.fulfill({ contentType: "text/html; charset=utf-8", body: HOST_PAGE });
    const file = join(LFORMS_DIST, pathname);
    return existsSync(file) ? route.fulfill({ path: file }) : route.fulfill({ status: 404 });
  });
  await page.goto(`${LHC_FORMS_ORIGIN}/`);
  await page.waitForFunction(() => window.LForms?.FHIR?.R4 !== undefined);
}

/** Renders an R4 Questionnaire with LHC-Forms' own conversion (`addFormToPage` with `fhirVersion`). */
export async function renderQuestionnaire(page: Page, questionnaire: unknown): Promise<void> {
  await page.evaluate(
    ({ form, container }) =>
      window.LForms!.Util.addFormToPage(form, document.getElementById(container)!, { fhirVersion: "R4" }),
    { form: questionnaire, container: FORM_CONTAINER },
  );
}

/** The QuestionnaireResponse LHC-Forms makes of the form as it is filled in now. */
export async function lhcFormsResponse(page: Page): Promise<QuestionnaireResponse> {
  return page.evaluate(
    (container) =>
      window.LForms!.Util.getFormFHIRData("QuestionnaireResponse", "R4", document.getElementById(container)!),
    FORM_CONTAINER,
  );
}
