import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deflateSync } from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { eq, signatureRequests } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "./harness";

/** A PDF with one page per size (points), each page labelled with its number. */
export async function makePdf(sizes: [number, number][] = [[595.28, 841.89]]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  sizes.forEach(([w, h], i) =>
    doc.addPage([w, h]).drawText(`Test document, page ${i + 1}`, { x: 40, y: h - 60, size: 14, font }),
  );
  return Buffer.from(await doc.save());
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An RGBA PNG: a solid dark-blue bar (the "signature") on a transparent background. */
export function makeSignaturePng(width = 300, height = 100): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 4);
    for (let x = 0; x < width; x++) {
      const ink = y > height * 0.2 && y < height * 0.8 && x > width * 0.05 && x < width * 0.95;
      row.set(ink ? [10, 20, 90, 255] : [255, 255, 255, 0], 1 + x * 4);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.concat(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A blank 1-bit greyscale PNG: a few KB that declare width × height pixels, which a decoder
 * expands to 4 bytes each (10000 × 10000 is about 12 KB on the wire and 400 MB decoded).
 */
export function makeBilevelPng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8);
  const row = 1 + Math.ceil(width / 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.alloc(row * height), { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

export const pngDataUrl = (png: Buffer) => `data:image/png;base64,${png.toString("base64")}`;

export interface FileServer {
  origin: string;
  hostPort: string;
  /** Serves `body` at `path` (or a custom handler). */
  set(
    path: string,
    body: Buffer | ((req: IncomingMessage, res: ServerResponse, body: string) => void),
    contentType?: string,
  ): void;
  requests: { path: string; method: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}

/** A loopback HTTP server standing in for the caller's blob store, JWKS or introspection endpoint. */
export async function startFileServer(): Promise<FileServer> {
  const routes = new Map<
    string,
    { body: Buffer | ((req: IncomingMessage, res: ServerResponse, body: string) => void); contentType: string }
  >();
  const requests: FileServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ path, method: req.method ?? "GET", headers: req.headers, body });
      const route = routes.get(path);
      if (!route) {
        res.writeHead(404).end("not found");
        return;
      }
      if (typeof route.body === "function") return route.body(req, res, body);
      res.writeHead(200, { "content-type": route.contentType, "content-length": route.body.length }).end(route.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    set(path, body, contentType = "application/pdf") {
      routes.set(path, { body, contentType });
    },
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const bearer = (org: Pick<TestOrg, "token">) => ({ authorization: `Bearer ${org.token}` });

export const inOneHour = () => new Date(Date.now() + 3600_000).toISOString();

/** Registers a document from the file server through A6 and returns its id. */
export async function registerDocument(
  api: Pick<TestApi, "request">,
  files: FileServer,
  org: Pick<TestOrg, "token">,
  options: { pdf?: Buffer; fields?: unknown; name?: string } = {},
): Promise<string> {
  const path = `/doc-${Math.random().toString(36).slice(2)}.pdf`;
  files.set(path, options.pdf ?? (await makePdf()));
  const res = await api.request("POST", "/documents", {
    headers: bearer(org),
    body: {
      document_name: options.name ?? "Einwilligung",
      document_description: "Aufklärung",
      account_name: "acct",
      signingfield_koordinates: options.fields ?? { page: 1, x: 50, y: 600, width: 200, height: 60 },
      document_bloburl: `${files.origin}${path}`,
    },
  });
  if (res.status !== 201) throw new Error(`A6 failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.document_id as string;
}

/** Creates a signature request through A1; returns the body plus the token from its link. */
export async function requestSignature(
  api: Pick<TestApi, "request">,
  org: Pick<TestOrg, "token">,
  documentId: string,
  patientId = "P-1",
  institutionId = "clinic-a",
) {
  const res = await api.request("POST", "/signature-requests", {
    headers: bearer(org),
    body: {
      patient_id: patientId,
      document_id: documentId,
      institution_id: institutionId,
      expiration_date: inOneHour(),
      order_by: "dr.house",
    },
  });
  if (res.status !== 201) throw new Error(`A1 failed: ${res.status} ${JSON.stringify(res.body)}`);
  const link = res.body.signing_link as string;
  return { id: res.body.signature_id as string, link, token: link.slice(link.lastIndexOf("/") + 1) };
}

/** Moves a request's expiry into the past directly in the database (no background job runs). */
export async function backdateExpiry(api: TestApi, id: string) {
  await api.services.db
    .update(signatureRequests)
    .set({ expiresAt: new Date(Date.now() - 1000) })
    .where(eq(signatureRequests.id, id));
}

/** Registers a document, requests a signature, signs it (drawn) and returns the sealed PDF (A3's bytes). */
export async function signAndSeal(
  api: TestApi,
  files: FileServer,
  org: TestOrg,
  patientId = "P-1",
  /** A document to sign again (its current version); absent: a new one. */
  existingDocumentId?: string,
): Promise<{ id: string; documentId: string; pdf: Buffer }> {
  const documentId = existingDocumentId ?? (await registerDocument(api, files, org));
  const request = await requestSignature(api, org, documentId, patientId);
  const signing = api.trpc({}).signing;
  const view = await signing.open.mutate({ token: request.token });
  const result = await signing.sign.mutate({
    sessionToken: view.sessionToken!,
    consent: true,
    signature: { kind: "drawn", dataUrl: pngDataUrl(makeSignaturePng()) },
  });
  if (result.state !== "completed") throw new Error(`signing ended ${result.state}`);
  const response = await fetch(`${api.baseUrl}/signature-requests/${request.id}/signed.pdf`, { headers: bearer(org) });
  if (response.status !== 200) throw new Error(`A3 download failed: ${response.status}`);
  return { id: request.id, documentId, pdf: Buffer.from(await response.arrayBuffer()) };
}

/** A test API whose documents come from a local file server, with two organizations. */
export interface SignatureTestApi {
  api: TestApi;
  files: FileServer;
  /** The organization the tests work in. */
  org: TestOrg;
  /** Another organization, to show that nothing of `org` reaches it. */
  other: TestOrg;
  close(): Promise<void>;
}

/**
 * The setup the signature tests share: the file server the A6 document URLs point at (allowed as
 * an outbound host, with `allowHosts` beside it), the portal and API at fixed public URLs (links
 * are compared as text), and two organizations.
 */
export async function startSignatureApi(
  options: { names?: [string, string]; env?: Record<string, string>; allowHosts?: string[] } = {},
): Promise<SignatureTestApi> {
  const [name, otherName] = options.names ?? ["Klinik Nord", "Klinik Süd"];
  const files = await startFileServer();
  const api = await startTestApi({
    OUTBOUND_ALLOW_HOSTS: [files.hostPort, ...(options.allowHosts ?? [])].join(","),
    PUBLIC_WEB_URL: "https://portal.test",
    PUBLIC_API_URL: "https://api.test",
    ...options.env,
  });
  return {
    api,
    files,
    org: await api.createOrg(name),
    other: await api.createOrg(otherName),
    async close() {
      await api.close();
      await files.close();
    },
  };
}
