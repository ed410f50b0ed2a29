/**
 * Loopback helpers for the extended scenarios: PDFs made with pdf-lib, a file server the API
 * fetches A6's `document_bloburl` from, and a webhook receiver for F10. Both servers listen on
 * 127.0.0.1 only and are closed by the caller.
 */
import { createServer, type Server } from "node:http";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** An A4 PDF with `pages` pages of plain text, like a scanned-in consent form's text layer. */
export async function makePdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawText(`Consent form, page ${p} of ${pages}`, { x: 56, y: 780, size: 16, font });
    for (let line = 0; line < 40; line++) {
      page.drawText(
        `${p}.${line + 1} The patient confirms having read and understood this paragraph of the information sheet.`,
        {
          x: 56,
          y: 740 - line * 16,
          size: 9,
          font,
        },
      );
    }
  }
  return Buffer.from(await doc.save());
}

export interface LocalServer {
  /** `127.0.0.1:<port>`, for OUTBOUND_ALLOW_HOSTS. */
  host: string;
  url(path: string): string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<LocalServer> {
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => done());
  });
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  const host = `127.0.0.1:${address.port}`;
  return {
    host,
    url: (path) => `http://${host}${path}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Serves fixed files by path (e.g. /one-page.pdf). */
export function startFileServer(files: Record<string, Buffer>): Promise<LocalServer> {
  return listen(
    createServer((req, res) => {
      const file = files[req.url ?? ""];
      if (!file) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { "content-type": "application/pdf", "content-length": file.length }).end(file);
    }),
  );
}

export interface WebhookReceiver extends LocalServer {
  /** POSTs received so far. */
  received(): number;
  /** POSTs received so far on one path (e.g. the FHIR push's base `/fhir/`). */
  receivedOn(path: string): number;
}

/** Answers every POST with 200 at once and counts it, like a healthy integrator endpoint. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const byPath = new Map<string, number>();
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method === "POST") {
        count++;
        byPath.set(req.url ?? "", (byPath.get(req.url ?? "") ?? 0) + 1);
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  const local = await listen(server);
  return { ...local, received: () => count, receivedOn: (path) => byPath.get(path) ?? 0 };
}
