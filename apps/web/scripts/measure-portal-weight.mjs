#!/usr/bin/env node
// The signing portal's JavaScript, measured in Chromium against a baseline page of the same build
// (issue 11: "the portal's bytes measured in Chromium by a script in the repo", as a ratio to a
// baseline measured in the same run).
//
//   node apps/web/scripts/measure-portal-weight.mjs --web http://127.0.0.1:3000 --sign <signing link>
//   node apps/web/scripts/measure-portal-weight.mjs --web … --api http://127.0.0.1:4000 --token <A-token> --pdf-url <url>
//
// With --api/--token/--pdf-url the script registers the PDF (A6) and asks for a signature (A1)
// itself; the API must be allowed to fetch --pdf-url (OUTBOUND_ALLOW_HOSTS). The web app must be
// a production build (`pnpm --filter @clinsign/web build`, served by server.mjs, which sends the
// brotli copies). Prints one line per figure and, last, one JSON line for `pnpm bench`.
//
// What is counted, per page, in a cold browser context at 390×844 (a phone): the encoded body
// bytes of every JavaScript response (scripts and worker scripts).
// - first load: the scripts the server's HTML names (script tags and preloads): what the page
//   needs to paint and become interactive;
// - later: every other script until the network is idle with the whole page scrolled through:
//   the chunks a page loads on its own (the PDF viewer with pdf.js and its worker, the
//   signature pad).
// The baseline is the root not-found page (under /sign/, so no sign-in redirect): React, Next's
// app router and the root layout, which
// every page of the app pays.
import { createRequire } from "node:module";
import console from "node:console";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, URL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
// Playwright lives in the e2e package; the system Chromium is the browser (as in e2e).
const { chromium } = createRequire(join(root, "e2e", "package.json"))("@playwright/test");

const { values: options } = parseArgs({
  options: {
    web: { type: "string", default: process.env.PUBLIC_WEB_URL ?? "http://127.0.0.1:3000" },
    sign: { type: "string" },
    api: { type: "string" },
    token: { type: "string" },
    "pdf-url": { type: "string" },
    baseline: { type: "string", default: "/sign/page-weight/baseline/not-found" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
    details: { type: "boolean", default: false },
  },
});

/** A1 through REST: a signing link for a fresh request on the PDF at `pdfUrl`. */
async function createSigningLink(api, token, pdfUrl) {
  const post = async (path, body) => {
    const response = await globalThis.fetch(`${api}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const document = await post("/documents", {
    document_name: "Consent to anaesthesia",
    document_description: "Please read the form and sign it before your appointment.",
    account_name: "page-weight",
    signingfield_koordinates: { page: 1, x: 60, y: 640, width: 240, height: 80 },
    document_bloburl: pdfUrl,
  });
  const request = await post("/signature-requests", {
    patient_id: `P-weight-${Date.now()}`,
    document_id: document.document_id,
    institution_id: "page-weight",
    expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
    order_by: "page-weight",
  });
  return request.signing_link;
}

/** Script URLs the HTML document names: `<script src>`, `<link rel=preload|modulepreload>`. */
function scriptsNamedIn(html, base) {
  const urls = new Set();
  for (const match of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g))
    urls.add(new URL(match[1].replaceAll("&amp;", "&"), base).href);
  for (const match of html.matchAll(/<link\b[^>]*>/g)) {
    const tag = match[0];
    if (!/\brel="(preload|modulepreload)"/.test(tag) || (/\brel="preload"/.test(tag) && !/\bas="script"/.test(tag)))
      continue;
    const href = /\bhref="([^"]+)"/.exec(tag);
    if (href) urls.add(new URL(href[1].replaceAll("&amp;", "&"), base).href);
  }
  return urls;
}

const isJavaScript = (request) =>
  request.resourceType() === "script" ||
  /\.(m?js)(\?|$)/.test(new URL(request.url()).pathname) ||
  (request.headers()["sec-fetch-dest"] ?? "").endsWith("worker");

/**
 * One cold visit: the page until `ready` (a level-1 heading) is visible and the network is
 * idle, then scrolled to the end (so everything a visitor would reach loads) until idle again.
 */
async function measurePage(browser, url, ready) {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    locale: "en-GB",
  });
  try {
    const page = await context.newPage();
    const sizes = [];
    page.on("requestfinished", (request) => {
      if (!isJavaScript(request)) return;
      // A worker's script is fetched by the worker, whose body size Chromium does not report to
      // the page: its Content-Length (the encoded size; the server sends a length) stands in.
      const measured = Promise.all([request.sizes(), request.response()]).then(([size, response]) => ({
        url: request.url(),
        bytes: size.responseBodySize || Number(response?.headers()["content-length"] ?? 0),
      }));
      sizes.push(measured);
    });
    const response = await page.goto(url, { waitUntil: "networkidle" });
    const named = scriptsNamedIn((await response?.text()) ?? "", page.url());
    if (ready)
      await page.getByRole("heading", { level: 1, name: ready }).waitFor({ state: "visible", timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    await page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)");
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(500).then(() => page.waitForLoadState("networkidle"));
    const scripts = await Promise.all(sizes);
    const firstLoad = scripts.filter((script) => named.has(script.url));
    const later = scripts.filter((script) => !named.has(script.url));
    const sum = (list) => list.reduce((total, script) => total + script.bytes, 0);
    return {
      firstLoad: sum(firstLoad),
      later: sum(later),
      total: sum(scripts),
      scripts: scripts.map((script) => ({ ...script, firstLoad: named.has(script.url) })),
    };
  } finally {
    await context.close();
  }
}

const web = options.web.replace(/\/$/, "");
let signUrl = options.sign;
if (!signUrl) {
  if (!options.api || !options.token || !options["pdf-url"]) {
    console.error("Give --sign <signing link>, or --api, --token and --pdf-url to create one.");
    process.exit(2);
  }
  signUrl = await createSigningLink(options.api.replace(/\/$/, ""), options.token, options["pdf-url"]);
}
// A link from A1 names PUBLIC_WEB_URL; measure it on the server given here.
const signPath = new URL(signUrl, web);
const signTarget = `${web}${signPath.pathname}${signPath.search}`;

const browser = await chromium.launch({
  executablePath: options.chromium,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
});
try {
  const baseline = await measurePage(browser, `${web}${options.baseline}`, null);
  const portal = await measurePage(browser, signTarget, /.+/);
  const ratio = (bytes) => (baseline.firstLoad > 0 ? bytes / baseline.firstLoad : Number.NaN);
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(`baseline (not-found page) first load: ${baseline.firstLoad} B (${kb(baseline.firstLoad)})`);
  console.log(
    `signing portal first load: ${portal.firstLoad} B (${kb(portal.firstLoad)}), ${ratio(portal.firstLoad).toFixed(2)}× the baseline`,
  );
  console.log(
    `signing portal loaded later (PDF viewer, pdf.js and its worker, signature pad): ${portal.later} B (${kb(portal.later)})`,
  );
  console.log(
    `signing portal in all: ${portal.total} B (${kb(portal.total)}), ${ratio(portal.total).toFixed(2)}× the baseline`,
  );
  if (options.details)
    for (const script of baseline.scripts)
      console.log(
        `  baseline ${script.firstLoad ? "first" : "later"}\t${script.bytes}\t${new URL(script.url).pathname}`,
      );
  if (options.details)
    for (const script of portal.scripts)
      console.log(`  ${script.firstLoad ? "first" : "later"}\t${script.bytes}\t${new URL(script.url).pathname}`);
  console.log(
    JSON.stringify({
      metric: "signing-portal-js",
      baselineFirstLoadBytes: baseline.firstLoad,
      firstLoadBytes: portal.firstLoad,
      laterBytes: portal.later,
      totalBytes: portal.total,
      firstLoadRatio: Number(ratio(portal.firstLoad).toFixed(3)),
      totalRatio: Number(ratio(portal.total).toFixed(3)),
    }),
  );
} finally {
  await browser.close();
}
