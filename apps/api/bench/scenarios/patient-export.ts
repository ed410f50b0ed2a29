/**
 * `patient-export-scale` (issue 17, "The bench reports export memory for 1 GiB of files"): one
 * patient with 1 GiB of form attachments (64 submissions × 16 MiB of random bytes, uploaded and
 * submitted through B-uploads and F10), then
 * - baseline: the same 64 files downloaded one after the other through the API's signed file URLs
 *   (`/api/embed/files/…`, the streamed download every attachment already has);
 * - export: `POST /patients/export` for the patient's case number, the ZIP read as a stream.
 * For both, the API's peak RSS growth over its RSS just before (goal for the export: ≤ 100 MiB),
 * seconds and MiB/s; the export's ZIP is written to a temporary file and opened with yauzl (every
 * attachment there, the manifest listing each with its size).
 *
 * Runs on PostgreSQL (DATABASE_URL, else the local server) in a database and an API process of its
 * own, files on the API's disk (STORAGE=fs).
 */
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";
import { CpuProbe } from "../cpu";
import { createBenchDatabase, LOCAL_POSTGRES_URL } from "../database";
import type { BenchOptions } from "../options";
import { apiEnv, describeFailure, freePort, startApiServer, waitForOutput, waitUntilReady } from "../processes";
import { PeakRssProbe, type RssMethod } from "../rss";
import type { Defer } from "./extended";

type Log = (message: string) => void;

const FILES = 64;
const FILE_BYTES = 16 * 1024 * 1024;
const RNUMMER = "BENCH-EXPORT-0001";
/** The export's goal (issue 17). */
export const PATIENT_EXPORT_RSS_GOAL_BYTES = 100 * 1024 * 1024;

export interface TransferMeasurement {
  label: string;
  files: number;
  bytes: number;
  seconds: number;
  rssBeforeBytes: number;
  rssPeakBytes: number;
  rssGrowthBytes: number;
  rssMethod: RssMethod;
  otherCpuPercent: number;
}

export interface PatientExportResult {
  baseline: TransferMeasurement;
  export: TransferMeasurement;
  notes: string[];
  serverVersion: string;
}

/** A PDF header (the upload checks the type) over random bytes, as incompressible as a scan. */
function scanBytes(): Buffer {
  const bytes = randomBytes(FILE_BYTES);
  bytes.write("%PDF-1.7\n", 0, "latin1");
  return bytes;
}

/** Counts bytes as they pass. */
class Counter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

/** Entry names and sizes of a ZIP on disk, and the manifest's text. */
async function zipContents(path: string): Promise<{ entries: Map<string, number>; manifest: string }> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  const entries = new Map<string, number>();
  let manifest = "";
  await new Promise<void>((resolve, reject) => {
    zip.on("error", reject);
    zip.on("end", () => resolve());
    zip.on("entry", (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry.uncompressedSize);
      if (entry.fileName !== "manifest.json") return zip.readEntry();
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const parts: Buffer[] = [];
        stream.on("data", (c: Buffer) => parts.push(c));
        stream.on("error", reject);
        stream.on("end", () => {
          manifest = Buffer.concat(parts).toString("utf8");
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  zip.close();
  return { entries, manifest };
}

export async function runPatientExportScale(
  options: BenchOptions,
  defer: Defer,
  log: Log,
): Promise<PatientExportResult> {
  const database = await createBenchDatabase(options.databaseUrl ?? LOCAL_POSTGRES_URL);
  defer(`drop database ${database.name}`, () => database.drop());
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-export-"));
  defer(`remove ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
  const work = mkdtempSync(join(tmpdir(), "clinsign-bench-export-zip-"));
  defer(`remove ${work}`, () => rmSync(work, { recursive: true, force: true }));
  const port = await freePort();
  const api = await startApiServer({
    name: "clinsign API on postgres (patient export)",
    args: ["--seed-demo"],
    env: apiEnv(port, dataDir, database.url),
    port,
  });
  defer(`stop ${api.name}`, () => api.stop());
  await waitUntilReady(api, "/readyz");
  const [, orgId] = await waitForOutput(api, /^\s+orgId\s+([0-9a-f-]{36})\s*$/m);
  const [, token] = await waitForOutput(api, /^\s+API token\s+(\S+)\s*$/m);
  const creds = { orgId: orgId!, token: token! };

  const json = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(api.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw describeFailure(api, `${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  const created = await json("/api/embed/templates", {
    ...creds,
    title: "Bench attachments",
    status: "active",
    schema: { version: 1, fields: [{ id: "scan", key: "scan", label: "Scan", type: "file", maxSizeMb: 25 }] },
  });
  const identifier = ((created.template ?? created) as { identifier: string }).identifier;

  log(`patient-export-scale: uploading ${FILES} × ${FILE_BYTES / 1024 / 1024} MiB for one patient`);
  const uploadStarted = performance.now();
  const urls: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const form = new FormData();
    for (const [k, v] of Object.entries({ ...creds, templateIdentifier: identifier, fieldKey: "scan" }))
      form.append(k, v);
    form.append("file", new Blob([new Uint8Array(scanBytes())], { type: "application/pdf" }), `scan-${i}.pdf`);
    const response = await fetch(`${api.baseUrl}/api/embed/uploads`, {
      method: "POST",
      body: form,
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw describeFailure(api, `upload answered ${response.status}: ${text.slice(0, 300)}`);
    const file = (JSON.parse(text) as { files: { url: string }[] & Record<string, unknown>[] }).files[0]!;
    urls.push(new URL(String(file.url)).pathname + new URL(String(file.url)).search);
    await json("/api/embed/submit", {
      ...creds,
      templateIdentifier: identifier,
      rnummer: RNUMMER,
      values: { scan: [file] },
    });
  }
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  const total = FILES * FILE_BYTES;

  const measure = async (label: string, transfer: () => Promise<number>): Promise<TransferMeasurement> => {
    log(`patient-export-scale: ${label}`);
    const rss = new PeakRssProbe(api.pid);
    const cpu = new CpuProbe(api.pid);
    rss.start();
    cpu.start();
    const started = performance.now();
    const bytes = await transfer();
    const seconds = (performance.now() - started) / 1000;
    const cpuUse = cpu.stop();
    const peak = rss.stop();
    return {
      label,
      files: FILES,
      bytes,
      seconds,
      rssBeforeBytes: peak.startBytes,
      rssPeakBytes: peak.bytes,
      rssGrowthBytes: peak.bytes - peak.startBytes,
      rssMethod: peak.method,
      otherCpuPercent: cpuUse.other,
    };
  };

  // Baseline: every file once through the API's own streamed download, read and hashed here.
  const baseline = await measure(`baseline: ${FILES} signed-URL downloads`, async () => {
    let bytes = 0;
    for (const url of urls) {
      const response = await fetch(api.baseUrl + url, { signal: AbortSignal.timeout(120_000) });
      if (response.status !== 200 || !response.body) throw describeFailure(api, `download answered ${response.status}`);
      const hash = createHash("sha256");
      for await (const chunk of response.body) {
        hash.update(chunk);
        bytes += chunk.byteLength;
      }
    }
    if (bytes !== total) throw describeFailure(api, `downloads brought ${bytes} bytes, ${total} were uploaded`);
    return bytes;
  });

  const zipPath = join(work, "export.zip");
  const exported = await measure("POST /patients/export (1 GiB of attachments)", async () => {
    const response = await fetch(`${api.baseUrl}/patients/export`, {
      method: "POST",
      headers: { authorization: `Bearer ${creds.token}`, "content-type": "application/json" },
      body: JSON.stringify({ rnummer: RNUMMER }),
      signal: AbortSignal.timeout(15 * 60_000),
    });
    if (response.status !== 200 || !response.body)
      throw describeFailure(api, `the export answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    const counter = new Counter();
    await pipeline(Readable.fromWeb(response.body as never), counter, createWriteStream(zipPath));
    return counter.bytes;
  });

  const { entries, manifest } = await zipContents(zipPath);
  const parsed = JSON.parse(manifest) as { files: { path: string; size: number; kind: string }[] };
  const attachments = parsed.files.filter((f) => f.kind === "upload");
  if (attachments.length !== FILES || attachments.some((f) => entries.get(f.path) !== FILE_BYTES))
    throw describeFailure(api, `the ZIP holds ${attachments.length} attachments of the ${FILES} uploaded`);
  if ([...entries.keys()].some((name) => name !== "manifest.json" && !parsed.files.some((f) => f.path === name)))
    throw describeFailure(api, "the ZIP holds a file its manifest does not list");
  await api.stop();
  return {
    baseline,
    export: exported,
    notes: [
      `patient export: ${FILES} attachments of ${FILE_BYTES / 1024 / 1024} MiB (random bytes) uploaded and submitted in ${uploadSeconds.toFixed(0)} s; files on the API's disk (STORAGE=fs), PostgreSQL ${database.serverVersion}.`,
      "patient export: the ZIP was opened with yauzl afterwards: every attachment there with its size, every entry in the manifest.",
    ],
    serverVersion: database.serverVersion,
  };
}

const mib = (bytes: number) => bytes / 1024 / 1024;

/** The export beside its baseline: MiB, seconds, MiB/s, RSS before, peak and growth (goal ≤ 100 MiB for the export). */
export function formatPatientExport(result: PatientExportResult): string {
  const header = [
    "transfer",
    "files",
    "MiB",
    "s",
    "MiB/s",
    "RSS before MiB",
    "peak MiB",
    "growth MiB",
    "goal ≤100 MiB",
    "other CPU %",
  ];
  const row = (m: TransferMeasurement, goal: boolean) => [
    m.label,
    String(m.files),
    mib(m.bytes).toFixed(0),
    m.seconds.toFixed(1),
    (mib(m.bytes) / m.seconds).toFixed(0),
    mib(m.rssBeforeBytes).toFixed(0),
    `${mib(m.rssPeakBytes).toFixed(0)}${m.rssMethod === "sampled" ? "~" : ""}`,
    mib(m.rssGrowthBytes).toFixed(1),
    goal ? (m.rssGrowthBytes <= PATIENT_EXPORT_RSS_GOAL_BYTES ? "met" : "MISSED") : "—",
    m.otherCpuPercent.toFixed(0),
  ];
  const cells = [header, row(result.baseline, false), row(result.export, true)];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  const ratio = result.export.seconds / result.baseline.seconds;
  return [
    "patient access export of 1 GiB vs the same files downloaded one by one (API process RSS; growth = peak − before)",
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    line(cells[1]!),
    line(cells[2]!),
    `time ratio export / baseline: ${ratio.toFixed(2)}×`,
  ].join("\n");
}
