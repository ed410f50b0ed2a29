import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { bearer, makePdf, startFileServer, type FileServer } from "../../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let org: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({
    OUTBOUND_ALLOW_HOSTS: files.hostPort,
    PDF_WORKER_MEMORY_MB: "96",
    PDF_WORKER_TIMEOUT_SECONDS: "10",
  });
  org = await api.createOrg("Klinik Süd");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

/**
 * A one-page PDF plus an object stream (pdf-lib inflates and parses object streams while loading)
 * whose decoded content is `objects`. No cross-reference table: pdf-lib reads the objects in order.
 */
function pdfWithObjectStream(objects: Buffer, kids = "[3 0 R]"): Buffer {
  const header = Buffer.from("5 0 ");
  const compressed = deflateSync(Buffer.concat([header, objects]), { level: 9 });
  return Buffer.concat([
    Buffer.from(
      "%PDF-1.7\n" +
        "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
        `2 0 obj\n<< /Type /Pages /Kids ${kids} /Count 1 >>\nendobj\n` +
        "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\n" +
        `4 0 obj\n<< /Type /ObjStm /N 1 /First ${header.length} /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`,
    ),
    compressed,
    Buffer.from("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 6 >>\n%%EOF\n"),
  ]);
}

async function a6(path: string) {
  return api.request("POST", "/documents", {
    headers: bearer(org),
    body: {
      document_name: "Hostile",
      signingfield_koordinates: { page: 1, x: 10, y: 10, width: 100, height: 40 },
      document_bloburl: `${files.origin}${path}`,
    },
  });
}

describe("A6 with hostile PDFs (parsed in the PDF worker under limits)", () => {
  it("refuses an object-graph bomb with 400 while the server keeps answering", async () => {
    // 20 million numbers in one array: tens of bytes of heap each, far beyond the worker's 96 MB.
    const numbers = Buffer.alloc(40_000_002, "0 ");
    numbers[0] = 0x5b; // [
    numbers[numbers.length - 1] = 0x5d; // ]
    files.set("/graph-bomb.pdf", pdfWithObjectStream(numbers));
    let settled = false;
    const pending = a6("/graph-bomb.pdf").finally(() => (settled = true));
    const health = await api.request("GET", "/healthz");
    expect(health).toMatchObject({ status: 200, body: { ok: true } });
    expect(settled).toBe(false);
    const res = await pending;
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "document_bloburl" } });
  });

  it("refuses a compression bomb (a stream inflating to 100 MB) with 400", async () => {
    files.set("/zip-bomb.pdf", pdfWithObjectStream(Buffer.alloc(100 * 1024 * 1024, 0x20)));
    const res = await a6("/zip-bomb.pdf");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "document_bloburl" } });
  });

  it("refuses a page tree that contains itself with 400", async () => {
    files.set("/cycle.pdf", pdfWithObjectStream(Buffer.from("null"), "[2 0 R 3 0 R]"));
    const res = await a6("/cycle.pdf");
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe("document_bloburl");
  });

  it("still registers an ordinary PDF, and stays healthy", async () => {
    files.set("/fine.pdf", await makePdf());
    expect((await a6("/fine.pdf")).status).toBe(201);
    expect((await api.request("GET", "/healthz")).status).toBe(200);
  });
});
