/**
 * `portal-speed` (issue 19): how soon the patient pages are usable on an emulated mid-range phone
 * over Slow 4G, measured in Chromium by apps/web/scripts/measure-portal-speed.mjs (CDP throttling:
 * 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, CPU four times slower; 390×844) against the
 * root not-found page of the same build under the same throttling.
 *
 * The signing portal is measured twice on one production build: with page images (the API draws
 * each version's pages once; the page shows images and never loads pdf.js) and with
 * `PAGE_IMAGES=false` (the page loads pdf.js and the PDF; its view is server-rendered too). Both on a 1-page
 * and a 30-page document; the embedded form and the SMS portal once. Builds with turbo like
 * portal-weight, starts the API (a fresh DATA_DIR each time) and the web server on free loopback
 * ports, and stops them by pid.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchOptions } from "../options";
import { apiEnv, describeFailure, freePort, startApiServer, waitForOutput, waitUntilReady } from "../processes";
import type { Defer } from "./extended";
import { makePdf, startFileServer } from "./fixtures";
import { buildWebApp, chromiumPath, runMeasureScript, startWebServer, tail, type MeasureScript } from "./portal-weight";

type Log = (message: string) => void;

const REPO_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const MEASURE_SCRIPT = join(REPO_DIR, "apps", "web", "scripts", "measure-portal-speed.mjs");
const MEASURE_TIMEOUT_MS = 20 * 60_000;

/** Issue 19's goals on the emulated phone, for 1- and 30-page documents. */
export const PAGE1_GOAL_MS = 2500;
export const PAD_GOAL_MS = 3000;

interface SigningFigures {
  page1Ms: number;
  padMs: number;
  pdfjsLoaded: boolean;
}

/** The JSON line the script prints last. */
interface ScriptFigures {
  metric: "patient-pages-speed";
  label: string;
  runs: number;
  imagesReady: boolean | null;
  baselineMs: number;
  signing1: SigningFigures;
  signing30: SigningFigures;
  embedMs?: number;
  smsMs?: number;
}

export type PortalSpeedResult =
  | {
      status: "measured";
      images: ScriptFigures;
      pdfjs: ScriptFigures;
      buildSeconds: number;
      notes: string[];
    }
  | { status: "skipped"; reason: string };

const SPEED_SCRIPT: MeasureScript<ScriptFigures> = {
  path: MEASURE_SCRIPT,
  timeoutMs: MEASURE_TIMEOUT_MS,
  usable: (figures) => figures.metric === "patient-pages-speed" && figures.baselineMs > 0,
};

export async function runPortalSpeed(options: BenchOptions, defer: Defer, log: Log): Promise<PortalSpeedResult> {
  const chromium = chromiumPath();
  const buildStarted = Date.now();
  const build = await buildWebApp(log, "portal-speed");
  const buildSeconds = (Date.now() - buildStarted) / 1000;
  if (!build.ok) return { status: "skipped", reason: `the web app could not be built: ${build.reason}` };
  if (options.databaseUrl) log("portal-speed: runs on PGlite (page speed does not depend on the database engine)");

  const files = await startFileServer({ "/one.pdf": await makePdf(1), "/thirty.pdf": await makePdf(30) });
  defer("close the portal-speed PDF server", () => files.close());
  const [apiPort, webPort, smsPort] = [await freePort(), await freePort(), await freePort()];
  const webUrl = `http://127.0.0.1:${webPort}`;

  const measureWith = async (pageImages: boolean): Promise<ScriptFigures> => {
    const label = pageImages ? "images" : "pdfjs";
    const dataDir = mkdtempSync(join(tmpdir(), `clinsign-bench-speed-${label}-`));
    defer(`remove ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
    const api = await startApiServer({
      name: `clinsign API (portal-speed, ${label})`,
      args: ["--seed-demo"],
      env: {
        ...apiEnv(apiPort, dataDir, undefined, [files.host, `127.0.0.1:${smsPort}`]),
        PUBLIC_WEB_URL: webUrl,
        WEB_PORT: String(webPort),
        PAGE_IMAGES: String(pageImages),
        SMS_PROVIDER: "twilio",
        TWILIO_API_URL: `http://127.0.0.1:${smsPort}`,
        TWILIO_ACCOUNT_SID: "ACbench",
        TWILIO_AUTH_TOKEN: "bench-gateway-token",
        TWILIO_FROM: "+15005550006",
      },
      port: apiPort,
    });
    defer(`stop ${api.name}`, () => api.stop());
    await waitUntilReady(api, "/readyz");
    const [, orgId] = await waitForOutput(api, /^\s+orgId\s+(\S+)\s*$/m);
    const [, token] = await waitForOutput(api, /^\s+API token\s+(\S+)\s*$/m);
    const web = startWebServer(webPort, api, defer);
    await waitUntilReady(web, "/login", 60_000);
    try {
      return await runMeasureScript(
        SPEED_SCRIPT,
        [
          "--web",
          webUrl,
          "--api",
          api.baseUrl,
          "--token",
          token!,
          "--org",
          orgId!,
          "--pdf-1",
          files.url("/one.pdf"),
          "--pdf-30",
          files.url("/thirty.pdf"),
          "--sms-port",
          String(smsPort),
          "--label",
          label,
          "--chromium",
          chromium,
          // A visit that times out leaves its screenshot here (named in the error).
          "--screenshot",
          join(tmpdir(), `clinsign-bench-speed-timeout-${label}.png`),
          ...(pageImages ? [] : ["--no-forms"]),
          // BENCH_PROFILE=<dir>: where the embedded form's main thread goes, one profiled visit more.
          ...(pageImages && process.env.BENCH_PROFILE ? ["--profile", process.env.BENCH_PROFILE] : []),
        ],
        log,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw describeFailure(web, `${message}\n--- last output of ${api.name} ---\n${tail(api.output())}`);
    } finally {
      await web.stop();
      await api.stop();
    }
  };

  log("portal-speed: signing portal with pdf.js (PAGE_IMAGES=false), the page without images");
  const pdfjs = await measureWith(false);
  log("portal-speed: signing portal with page images, embedded form, SMS portal");
  const images = await measureWith(true);
  return {
    status: "measured",
    images,
    pdfjs,
    buildSeconds: Math.round(buildSeconds * 10) / 10,
    notes: [
      "Chromium, cold context per visit, CDP throttling: 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up, CPU ×4, 390×844; median of " +
        `${images.runs} visits. Times from the start of navigation.`,
      "page 1 drawn: page 1's image (or pdf.js canvas) has painted; pad ready: the signature pad's canvas has its handlers; first field: the page's first text field has its handlers.",
      "baseline: the root not-found page of the same build, its load event, under the same throttling.",
      `loopback servers on one machine: the throttling stands in for the network; the API ran on PGlite.${images.imagesReady === false ? " WARNING: the page images were not ready in time, the images row fell back to pdf.js." : ""}`,
    ],
  };
}

const ms = (n: number | undefined) => (n === undefined ? "–" : `${n.toLocaleString("en-US")} ms`);

/** The section `pnpm bench` prints: each time and its ratio to the baseline; the goals of issue 19. */
export function formatPortalSpeed(result: PortalSpeedResult): string {
  const title = "patient pages on an emulated slow phone (issue 19), vs the not-found page of the same build";
  if (result.status === "skipped") return `${title}\nskipped: ${result.reason}`;
  const { images, pdfjs } = result;
  const base = images.baselineMs;
  const goal = (value: number, limit: number) =>
    value <= limit ? `goal ≤ ${limit} ms: met` : `goal ≤ ${limit} ms: NOT met`;
  const rows: [string, number | undefined, string][] = [
    ["baseline: not-found page, load", base, ""],
    ["signing 1 page, page 1 drawn (images)", images.signing1.page1Ms, goal(images.signing1.page1Ms, PAGE1_GOAL_MS)],
    ["signing 1 page, pad ready (images)", images.signing1.padMs, goal(images.signing1.padMs, PAD_GOAL_MS)],
    [
      "signing 30 pages, page 1 drawn (images)",
      images.signing30.page1Ms,
      goal(images.signing30.page1Ms, PAGE1_GOAL_MS),
    ],
    ["signing 30 pages, pad ready (images)", images.signing30.padMs, goal(images.signing30.padMs, PAD_GOAL_MS)],
    ["signing 1 page, page 1 drawn (pdf.js)", pdfjs.signing1.page1Ms, ""],
    ["signing 1 page, pad ready (pdf.js)", pdfjs.signing1.padMs, ""],
    ["signing 30 pages, page 1 drawn (pdf.js)", pdfjs.signing30.page1Ms, ""],
    ["signing 30 pages, pad ready (pdf.js)", pdfjs.signing30.padMs, ""],
    ["embedded form, first field takes input", images.embedMs, ""],
    ["SMS portal, first field takes input", images.smsMs, ""],
  ];
  const header = ["what", "time", "× baseline", ""];
  const cells = [
    header,
    ...rows.map(([what, value, note]) => [
      what,
      ms(value),
      value === undefined ? "–" : what.startsWith("baseline") ? "1.00 (base)" : (value / base).toFixed(2),
      note,
    ]),
  ];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const lines = cells.map((row) =>
    row
      .map((cell, column) =>
        column === 0 || column === row.length - 1 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join("  ")
      .trimEnd(),
  );
  const pdfjsNote = `pdf.js downloaded: images run ${images.signing1.pdfjsLoaded || images.signing30.pdfjsLoaded ? "yes (fallback!)" : "no"}, pdf.js run ${pdfjs.signing1.pdfjsLoaded ? "yes" : "no"}`;
  return [title, ...lines, `- ${pdfjsNote}`, ...result.notes.map((note) => `- ${note}`)].join("\n");
}
