/**
 * The FHIR push's Bundle (issue 34), in-process: what building the transaction of one sealed PDF
 * costs (sealedPdfBundle in src/core/fhir-push/bundles.ts: the SHA-1, the ISiK DocumentReference
 * with the bytes inline, the seal's CMS found in the file, the Provenance, the transaction) and
 * serializing it, against the least any push of that PDF does: its bytes as base64 in a JSON
 * string. No database and no network; the delivery itself is f10-fhir's.
 */
import { performance } from "node:perf_hooks";
import { sealedPdfBundle } from "../../src/core/fhir-push/bundles";
import { makePdf } from "./fixtures";

const PAGES = [1, 30];
const RUNS = 50;

export interface FhirBundleRow {
  pages: number;
  pdfBytes: number;
  bundleBytes: number;
  /** Mean ms per Bundle: built and serialized. */
  buildMs: number;
  /** Mean ms of base64 + JSON of the same bytes. */
  bareMs: number;
  ratio: number;
}

function mean(runs: number, work: () => unknown): number {
  work();
  const started = performance.now();
  for (let i = 0; i < runs; i++) work();
  return (performance.now() - started) / runs;
}

export async function measureFhirBundle(log: (message: string) => void): Promise<FhirBundleRow[]> {
  const rows: FhirBundleRow[] = [];
  for (const pages of PAGES) {
    log(`FHIR Bundle of a ${pages}-page PDF: ${RUNS} runs`);
    const pdf = Buffer.from(await makePdf(pages));
    const facts = {
      apiUrl: "https://api.bench.example",
      requestId: "00000000-0000-4000-8000-000000000034",
      patient: { system: "https://his.bench.example/sid/patient", value: "bench-patient" },
      title: "Bench consent",
      description: "Bench consent",
      language: "de",
      organization: "Bench clinic",
      completedAt: new Date().toISOString(),
      signers: [{ role: "patient" }],
      pdf,
      sha256Hex: "0".repeat(64),
    };
    const build = () => JSON.stringify(sealedPdfBundle(facts));
    const buildMs = mean(RUNS, build);
    const bareMs = mean(RUNS, () => JSON.stringify({ data: pdf.toString("base64") }));
    rows.push({ pages, pdfBytes: pdf.length, bundleBytes: build().length, buildMs, bareMs, ratio: buildMs / bareMs });
  }
  return rows;
}

/** The rows as notes of the report. */
export const fhirBundleNotes = (rows: FhirBundleRow[]) =>
  rows.map(
    (r) =>
      `FHIR Bundle, ${r.pages}-page PDF (${r.pdfBytes} bytes → ${r.bundleBytes} bytes of JSON): ${r.buildMs.toFixed(3)} ms built and serialized, ${r.ratio.toFixed(2)}× base64 + JSON of the bytes (${r.bareMs.toFixed(3)} ms).`,
  );
