/**
 * The completion pipeline, in-process (no HTTP, no database): what produceSealedResult in
 * src/core/signatures/seal.ts does to the bytes of one document — prepareSeal (one pdf-lib load:
 * draw the signature into the field, save the stamped file, add the audit page and the PAdES
 * placeholder, save again; in the service this runs in the PDF worker), signSealPlaceholder (CMS
 * signature with the development certificate) and the SHA-256 hashes —
 * timed against the plainest pdf-lib work on the same file: PDFDocument.load(bytes) + save().
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
import { loadSigningIdentity, signSealPlaceholder } from "../../src/core/signatures/pades";
import { prepareSeal } from "../../src/core/signatures/seal-pdf";
import { makePdf } from "./fixtures";

export interface CompletionRow {
  pages: number;
  inputBytes: number;
  outputBytes: number;
  runs: number;
  /** Mean ms per document of each step and of the whole pipeline. */
  prepareMs: number;
  signMs: number;
  pipelineMs: number;
  /** Mean ms of PDFDocument.load + save on the same input. */
  bareMs: number;
  /** pipelineMs / bareMs. */
  ratio: number;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

type SigningConfig = Parameters<typeof loadSigningIdentity>[0];

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
      signer: "Erika Mustermann (typed name)",
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
      trustedTime: "none",
    },
    placeholder: { reason: "bench", location: "bench", contactInfo: "ClinSign", signingTime: new Date(), name: identity.subject },
  });
  const t1 = performance.now();
  const signed = await signSealPlaceholder(prepared, identity);
  sha256(signed);
  const t2 = performance.now();
  return { prepare: t1 - t0, sign: t2 - t1, total: t2 - t0, outputBytes: signed.length };
}

async function bareOnce(original: Buffer): Promise<number> {
  const t0 = performance.now();
  const doc = await PDFDocument.load(original);
  await doc.save();
  return performance.now() - t0;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** `runs` measured documents per page count, after 2 unmeasured ones each (JIT, font caches). */
export async function measureCompletion(pageCounts: number[], runs: number, log: (message: string) => void): Promise<CompletionRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "clinsign-bench-seal-"));
  try {
    // The development certificate, generated once under dataDir, as the API does without SIGNING_P12_FILE.
    const signing: SigningConfig = { signingP12: undefined, dataDir };
    loadSigningIdentity(signing);
    const rows: CompletionRow[] = [];
    for (const pages of pageCounts) {
      const original = await makePdf(pages);
      log(`completion, ${pages} page(s) (${(original.length / 1024).toFixed(0)} KiB): 2 warm-up + ${runs} measured documents, each followed by a pdf-lib load+save`);
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
        pipelineMs,
        bareMs,
        ratio: pipelineMs / bareMs,
      });
    }
    return rows;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatCompletionTable(rows: CompletionRow[]): string {
  const header = ["pages", "in KiB", "out KiB", "docs", "prepare ms", "sign ms", "pipeline ms/doc", "pdf-lib load+save ms", "vs bare"];
  const body = rows.map((r) => [
    String(r.pages),
    (r.inputBytes / 1024).toFixed(0),
    (r.outputBytes / 1024).toFixed(0),
    String(r.runs),
    r.prepareMs.toFixed(1),
    r.signMs.toFixed(1),
    r.pipelineMs.toFixed(1),
    r.bareMs.toFixed(1),
    `${r.ratio.toFixed(2)}x slower`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}
