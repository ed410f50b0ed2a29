/**
 * The completion pipeline, in-process (no HTTP, no database): what produceSealedResult in
 * src/core/signatures/seal.ts (its PDF steps in sealed-pdf.ts) does to the bytes of one document — prepareSeal (one pdf-lib load:
 * draw the signature into the field, save the stamped file, add the audit page and the PAdES
 * placeholder, save again; in the service this runs in the PDF worker), sealWithTime (CMS
 * signature with a CA-issued test certificate, its RFC 3161 time stamp, DSS with chains and
 * OCSP/CRL, a document time stamp: PAdES B-LTA, against the local test PKI of src/testing/pki.ts)
 * and the SHA-256 hashes — timed against the plainest pdf-lib work on the same file:
 * PDFDocument.load(bytes) + save(). The time spent waiting for the TSA's and the OCSP/CRL
 * servers' answers (network and their signing) is left out of the pipeline and reported apart.
 *
 * Not included: the PDF worker thread the service runs prepareSeal in (its start-up and the copy
 * of the bytes in and out), reading the original and writing the three result files to storage,
 * the row update and audit/webhook entries of the completion transaction (a few ms of SQL).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PDFDocument } from "pdf-lib";
import { sealWithTime } from "../../src/core/pdf-seal/ltv";
import { loadSigningIdentity } from "../../src/core/pdf-seal/pades";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { prepareSeal } from "../../src/core/pdf-seal/seal-pdf";
import { makePdf } from "./fixtures";

export interface CompletionRow {
  pages: number;
  inputBytes: number;
  outputBytes: number;
  runs: number;
  /** Mean ms per document of each step and of the whole pipeline. */
  prepareMs: number;
  signMs: number;
  /** Mean ms per document spent waiting for the local TSA and OCSP/CRL answers (excluded from pipelineMs). */
  waitMs: number;
  /** PAdES level of the output. */
  level: string;
  /** The whole pipeline minus waitMs (mean). */
  pipelineMs: number;
  /** Mean ms of PDFDocument.load + save on the same input. */
  bareMs: number;
  /** pipelineMs / bareMs: the figure the goals were set in. */
  ratio: number;
  /** The median document's pipeline over the median load+save: a neighbour's burst moves it less. */
  medianRatio: number;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

type SigningConfig = Parameters<typeof loadSigningIdentity>[0] & Parameters<typeof sealWithTime>[0];

async function pipelineOnce(original: Buffer, signing: SigningConfig) {
  const t0 = performance.now();
  // As produceSealedResult does: the identity is looked up per document (parsed once, then cached).
  const identity = loadSigningIdentity(signing);
  const originalSha256 = sha256(original);
  const { prepared } = await prepareSeal({
    original,
    fields: [{ page: 1, x: 350, y: 700, width: 180, height: 50 }],
    png: null,
    typedName: "Erika Mustermann",
    facts: {
      title: "Bench consent",
      signatureId: "00000000-0000-4000-8000-000000000001",
      documentId: "00000000-0000-4000-8000-000000000002",
      version: 1,
      signature: { kind: "typed", name: "Erika Mustermann" },
      language: "en",
      clinicLanguage: "de",
      patientId: "bench-patient",
      institutionId: "bench-institution",
      orderBy: "Dr. Bench",
      createdAt: new Date(),
      openedAt: new Date(),
      signedAt: new Date(),
      ip: "127.0.0.1",
      userAgent: "bench",
      originalSha256,
      certificate: `${identity.subject}, SHA-256 ${identity.fingerprint}`,
      development: identity.development,
      tsaHost: null,
    },
    placeholder: {
      reason: "bench",
      location: "bench",
      contactInfo: "ClinSign",
      signingTime: new Date(),
      name: identity.subject,
    },
  });
  const t1 = performance.now();
  const seal = await sealWithTime(signing, prepared, identity);
  sha256(seal.pdf);
  const t2 = performance.now();
  return {
    prepare: t1 - t0,
    sign: t2 - t1 - seal.waitMs,
    wait: seal.waitMs,
    total: t2 - t0 - seal.waitMs,
    outputBytes: seal.pdf.length,
    level: seal.level,
  };
}

async function bareOnce(original: Buffer): Promise<number> {
  const t0 = performance.now();
  const doc = await PDFDocument.load(original);
  await doc.save();
  return performance.now() - t0;
}

/** bench/pki-process.ts as a child process: its URLs and the sealing certificate; close() ends it. */
async function startPkiProcess() {
  const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "..", "pki-process.ts")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the test PKI process ended (${code})`)));
  });
  const info = JSON.parse(first) as { tsaUrl: string; hostPort: string; sealP12: { file: string; password: string } };
  return {
    ...info,
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.stdin!.end();
      }),
  };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** `runs` measured documents per page count, after 2 unmeasured ones each (JIT, font caches). */
export async function measureCompletion(
  pageCounts: number[],
  runs: number,
  log: (message: string) => void,
): Promise<CompletionRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-seal-"));
  // A local test PKI (openssl CA, TSA, OCSP responder on loopback): the seal is PAdES B-LTA as in
  // production with TSA_URL and a CA-issued certificate. Waiting for its answers is reported apart.
  const pki = await startPkiProcess();
  try {
    const signing: SigningConfig = {
      signingP12: pki.sealP12,
      dataDir,
      tsa: { url: pki.tsaUrl, username: undefined, password: undefined, timeoutMs: 10_000 },
      outboundAllowHosts: [pki.hostPort],
    };
    loadSigningIdentity(signing);
    const rows: CompletionRow[] = [];
    for (const pages of pageCounts) {
      const original = await makePdf(pages);
      log(
        `completion, ${pages} page(s) (${(original.length / 1024).toFixed(0)} KiB): 2 warm-up + ${runs} measured documents, each followed by a pdf-lib load+save`,
      );
      for (let i = 0; i < 2; i++) {
        await pipelineOnce(original, signing);
        await bareOnce(original);
      }
      const samples: Awaited<ReturnType<typeof pipelineOnce>>[] = [];
      // Alternating, so that both see the same share of whatever else the machine is doing.
      const bare: number[] = [];
      for (let i = 0; i < runs; i++) {
        samples.push(await pipelineOnce(original, signing));
        bare.push(await bareOnce(original));
      }
      const pipelineMs = mean(samples.map((s) => s.total));
      const bareMs = mean(bare);
      rows.push({
        pages,
        inputBytes: original.length,
        outputBytes: samples[0]!.outputBytes,
        runs,
        prepareMs: mean(samples.map((s) => s.prepare)),
        signMs: mean(samples.map((s) => s.sign)),
        waitMs: mean(samples.map((s) => s.wait)),
        level: samples[0]!.level,
        pipelineMs,
        bareMs,
        ratio: pipelineMs / bareMs,
        medianRatio: median(samples.map((s) => s.total)) / median(bare),
      });
    }
    return rows;
  } finally {
    await pki.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatCompletionTable(rows: CompletionRow[]): string {
  const header = [
    "pages",
    "level",
    "in KiB",
    "out KiB",
    "docs",
    "prepare ms",
    "sign+LTV ms",
    "pipeline ms/doc",
    "TSA/OCSP wait ms (apart)",
    "pdf-lib load+save ms",
    "vs bare",
    "medians",
  ];
  const body = rows.map((r) => [
    String(r.pages),
    r.level,
    (r.inputBytes / 1024).toFixed(0),
    (r.outputBytes / 1024).toFixed(0),
    String(r.runs),
    r.prepareMs.toFixed(1),
    r.signMs.toFixed(1),
    r.pipelineMs.toFixed(1),
    r.waitMs.toFixed(1),
    r.bareMs.toFixed(1),
    `${r.ratio.toFixed(2)}x slower`,
    `${r.medianRatio.toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}
