#!/usr/bin/env node
// How fast the patient pages become usable on a slow phone (issue 19), measured in Chromium with
// DevTools throttling against a baseline page of the same build:
//
//   node apps/web/scripts/measure-portal-speed.mjs --web http://127.0.0.1:3000 --api http://127.0.0.1:4000 \
//     --token <API token> --org <orgId> --pdf-1 <url of a 1-page PDF> --pdf-30 <url of a 30-page PDF> \
//     [--sms-port <port the API's TWILIO_API_URL points at>] [--runs 3] [--label images]
//
// The emulated phone: 390×844, touch; network 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up
// (CDP Network.emulateNetworkConditions); CPU four times slower (Emulation.setCPUThrottlingRate).
// Every visit is a cold browser context (empty cache). Times are from the start of navigation:
// - signing portal, page 1 drawn: page 1's image painted (its Element Timing entry, which counts
//   an image drawn from the server's HTML before the page's scripts ran), or page 1 carrying
//   `data-rendered` (pdf.js has drawn its canvas), whichever comes first;
// - signing portal, pad ready: the signature pad's canvas is in the page with React's handlers
//   on it (it accepts strokes);
// - embedded form and SMS portal, first field taking input: the first text field of the page with
//   React's handlers on it;
// - baseline: the root not-found page of the same build (React, Next's router, the root layout),
//   its `load` event: what any page of the app pays before it can do anything.
// Each figure is the median of --runs visits. Prints one line per figure, then one JSON line.
/* global window, document, performance, MutationObserver, PerformanceObserver -- recorder() and the waits run in the page */
import { createRequire } from "node:module";
import console from "node:console";
import { setInterval, clearInterval, setTimeout } from "node:timers";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, URL, URLSearchParams } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const { chromium } = createRequire(join(root, "e2e", "package.json"))("@playwright/test");

const { values: options } = parseArgs({
  options: {
    web: { type: "string", default: "http://127.0.0.1:3000" },
    api: { type: "string" },
    token: { type: "string" },
    org: { type: "string" },
    "pdf-1": { type: "string" },
    "pdf-30": { type: "string" },
    "sms-port": { type: "string" },
    runs: { type: "string", default: "3" },
    label: { type: "string", default: "" },
    forms: { type: "boolean", default: true },
    baseline: { type: "string", default: "/sign/page-weight/baseline/not-found" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
    /** Where to save a screenshot of a visit that timed out (for finding out why). */
    screenshot: { type: "string" },
    /**
     * Where the embedded form's main thread goes: one more visit with the CPU profiler on, until
     * the first field takes input; its profile is written here and summed up in the output.
     */
    profile: { type: "string" },
  },
  allowNegative: true,
});

const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  locale: "en-GB",
};
const NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1000 * 1000) / 8,
  uploadThroughput: (750 * 1000) / 8,
};
const CPU_SLOWDOWN = 4;
const VISIT_TIMEOUT_MS = 90_000;

const web = options.web.replace(/\/$/, "");
const api = options.api?.replace(/\/$/, "");
const runs = Math.max(1, Number(options.runs) || 3);

async function call(method, path, body, headers = {}) {
  const response = await globalThis.fetch(`${api}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** A6 + A1: a signing link for the PDF at `pdfUrl`. */
async function signingLink(pdfUrl, pages) {
  const bearer = { authorization: `Bearer ${options.token}` };
  const document = await call(
    "POST",
    "/documents",
    {
      document_name: `Consent (${pages} pages)`,
      document_description: "Please read the form and sign it before your appointment.",
      signingfield_koordinates: { page: pages, x: 60, y: 640, width: 240, height: 80 },
      document_bloburl: pdfUrl,
    },
    bearer,
  );
  const request = await call(
    "POST",
    "/signature-requests",
    {
      patient_id: `P-speed-${pages}-${Date.now()}`,
      document_id: document.document_id,
      institution_id: "portal-speed",
      expiration_date: new Date(Date.now() + 3_600_000).toISOString(),
      order_by: "portal-speed",
    },
    bearer,
  );
  return request.signing_link;
}

/** Waits until `signing.open` names page images for the link (the job has drawn them), or gives up. */
async function waitForPageImages(link) {
  const token = link.slice(link.lastIndexOf("/") + 1);
  const until = Date.now() + 180_000;
  while (Date.now() < until) {
    const reply = await call("POST", "/trpc/signing.open", { token });
    if (reply.result?.data?.pageImages) return true;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return false;
}

const FIELDS = [
  { id: "name", key: "name", type: "text", label: "Full name", required: true },
  { id: "birthdate", key: "birthdate", type: "date", label: "Date of birth" },
  { id: "notes", key: "notes", type: "textarea", label: "Anything we should know?" },
];

/** F2 (an active template) and F-sessions: an embedded form's URL. */
async function embedUrl() {
  const template = await call("POST", "/api/embed/templates", {
    token: options.token,
    orgId: options.org,
    title: "Admission form (speed)",
    status: "active",
    schema: { version: 1, fields: FIELDS },
  });
  const session = await call("POST", "/api/embed/sessions", {
    token: options.token,
    orgId: options.org,
    templateIdentifier: template.template.identifier,
    config: {},
  });
  return { identifier: template.template.identifier, url: session.embedUrl };
}

/** F1 through a loopback SMS gateway (the API's TWILIO_API_URL): the SMS portal link. */
async function smsPortalUrl(identifier) {
  const messages = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      messages.push(new URLSearchParams(body).get("Body") ?? "");
      response.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: `SM${Date.now()}` }));
    });
  });
  await new Promise((resolve) => server.listen(Number(options["sms-port"]), "127.0.0.1", resolve));
  try {
    await call("POST", "/api/portal/request", {
      token: options.token,
      orgId: options.org,
      phone: "+491701234567",
      rnummer: "R-4711",
      templateIdentifier: identifier,
    });
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      const link = messages.map((text) => /(https?:\/\/\S+\/f\/[A-Za-z0-9_-]+)/.exec(text)?.[1]).find(Boolean);
      if (link) return link;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error("the SMS with the portal link did not arrive");
  } finally {
    server.close();
  }
}

/**
 * Runs in the page from its first script: notes `performance.now()` the first time each watched
 * condition holds. "Takes input": the element is there, enabled, and React has attached its
 * handlers (its `__reactProps$…` key), so a tap or keystroke is handled.
 */
function recorder() {
  const marks = {};
  window.__speedMarks = marks;
  const hydrated = (element) => Object.keys(element).some((key) => key.startsWith("__reactProps$"));
  const checks = {
    page1: () => document.querySelector('[data-page="1"][data-rendered]'),
    pad: () => {
      const canvas = document.querySelector('[data-testid="signature-canvas"]');
      return canvas && hydrated(canvas) ? canvas : null;
    },
    field: () => {
      const field = document.querySelector(
        'main input:not([type="hidden"]):not([disabled]), main textarea:not([disabled])',
      );
      return field && hydrated(field) ? field : null;
    },
  };
  const check = () => {
    for (const [name, test] of Object.entries(checks))
      if (marks[name] === undefined && test()) marks[name] = performance.now();
  };
  // An image's paint, on the same clock; its entry may be reported after the attribute was seen.
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier !== "document-page-1") continue;
      const painted = entry.renderTime || entry.loadTime;
      if (marks.page1 === undefined || painted < marks.page1) marks.page1 = painted;
    }
  }).observe({ type: "element", buffered: true });
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
  // React attaches handlers without changing the DOM: look again on a short timer too.
  const timer = setInterval(() => {
    check();
    if (Object.keys(marks).length === Object.keys(checks).length) clearInterval(timer);
  }, 20);
}

async function visit(browser, url, want, profiled = false) {
  const context = await browser.newContext(PHONE);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", NETWORK);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    await page.addInitScript(recorder);
    if (profiled) {
      await cdp.send("Performance.enable");
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    const pdfjs = [];
    page.on("request", (request) => {
      if (/pdf\.worker|pdfjs|pdf-pages/.test(request.url())) pdfjs.push(request.url());
    });
    await page.goto(url, { waitUntil: "commit", timeout: VISIT_TIMEOUT_MS });
    if (want.length === 0) {
      await page.waitForLoadState("load", { timeout: VISIT_TIMEOUT_MS });
      return {
        load: await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd),
        pdfjs: pdfjs.length > 0,
      };
    }
    await page.waitForFunction((names) => names.every((name) => window.__speedMarks?.[name] !== undefined), want, {
      timeout: VISIT_TIMEOUT_MS,
      polling: 100,
    });
    const marks = await page.evaluate(() => ({ ...window.__speedMarks }));
    if (profiled) {
      const { metrics } = await cdp.send("Performance.getMetrics");
      const { profile } = await cdp.send("Profiler.stop");
      return { ...marks, pdfjs: pdfjs.length > 0, metrics, profile };
    }
    return { ...marks, pdfjs: pdfjs.length > 0 };
  } finally {
    await context.close();
  }
}

/**
 * A CPU profile summed up: self time per script (the chunk's file name) and per function, the
 * largest first. Times are of the throttled thread, as the phone would spend them.
 */
function profileSummary(profile, top = 10) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byScript = new Map();
  const byFunction = new Map();
  for (const [id, micros] of self) {
    const frame = byNode.get(id).callFrame;
    const script = frame.url
      ? new URL(frame.url).pathname.split("/").pop() || frame.url
      : `(${frame.functionName || "native"})`;
    byScript.set(script, (byScript.get(script) ?? 0) + micros);
    const name = `${frame.functionName || "(anonymous)"} ${script}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const largest = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => `${Math.round(micros / 1000)} ms  ${name}`);
  return { scripts: largest(byScript), functions: largest(byFunction) };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function measure(browser, url, want) {
  const visits = [];
  for (let run = 0; run < runs; run++) visits.push(await visit(browser, url, want));
  const figure = {};
  for (const name of want.length === 0 ? ["load"] : want) figure[name] = Math.round(median(visits.map((v) => v[name])));
  figure.pdfjs = visits.some((v) => v.pdfjs);
  return figure;
}

const browser = await chromium.launch({
  executablePath: options.chromium,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  const local = (link) => {
    const path = new URL(link, web);
    return `${web}${path.pathname}${path.search}`;
  };
  const sign1 = await signingLink(options["pdf-1"], 1);
  const sign30 = await signingLink(options["pdf-30"], 30);
  let imagesReady = null;
  if (options.label === "images") imagesReady = (await waitForPageImages(sign1)) && (await waitForPageImages(sign30));

  const figures = { metric: "patient-pages-speed", label: options.label, runs, imagesReady };
  figures.baselineMs = (await measure(browser, `${web}${options.baseline}`, [])).load;
  console.log(`baseline (not-found page, load): ${figures.baselineMs} ms`);
  for (const [name, link] of [
    ["signing1", sign1],
    ["signing30", sign30],
  ]) {
    const figure = await measure(browser, local(link), ["page1", "pad"]);
    figures[name] = { page1Ms: figure.page1, padMs: figure.pad, pdfjsLoaded: figure.pdfjs };
    console.log(
      `signing portal ${name === "signing1" ? "1 page" : "30 pages"}: page 1 drawn ${figure.page1} ms, pad ready ${figure.pad} ms${figure.pdfjs ? " (pdf.js loaded)" : " (no pdf.js)"}`,
    );
  }
  if (options.forms) {
    const embed = await embedUrl();
    figures.embedMs = (await measure(browser, local(embed.url), ["field"])).field;
    console.log(`embedded form, first field takes input: ${figures.embedMs} ms`);
    if (options["sms-port"]) {
      figures.smsMs = (await measure(browser, local(await smsPortalUrl(embed.identifier)), ["field"])).field;
      console.log(`SMS portal, first field takes input: ${figures.smsMs} ms`);
    }
  }
  if (options.profile && options.forms) {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const embed = await embedUrl();
    const profiled = await visit(browser, local(embed.url), ["field"], true);
    mkdirSync(options.profile, { recursive: true });
    writeFileSync(join(options.profile, "embedded-form.cpuprofile"), JSON.stringify(profiled.profile));
    const metric = (name) => Math.round((profiled.metrics.find((m) => m.name === name)?.value ?? 0) * 1000);
    console.log(
      `profile: embedded form, first field at ${Math.round(profiled.field)} ms; main thread busy ` +
        `${metric("TaskDuration")} ms: script ${metric("ScriptDuration")} ms, style ${metric("RecalcStyleDuration")} ms, ` +
        `layout ${metric("LayoutDuration")} ms`,
    );
    const summary = profileSummary(profiled.profile);
    console.log(`profile: self time by script\n  ${summary.scripts.join("\n  ")}`);
    console.log(`profile: self time by function\n  ${summary.functions.join("\n  ")}`);
  }
  console.log(JSON.stringify(figures));
} finally {
  await browser.close();
}
