import type { IncomingMessage, ServerResponse } from "node:http";
import { uploadDocumentMetadata, type UploadDocumentOutput } from "@clinsign/contracts";
import type { RequestMeta, Services } from "../core/context";
import { MAX_PDF_BYTES, registerDocument } from "../core/documents/documents";
import { readDocumentPdf } from "../core/documents/staff";
import { AppError } from "../core/errors";
import { SESSION_COOKIE } from "../core/staff/staff";
import { assertStorableInput } from "../core/storable-text";
import { renderError } from "../rest/envelopes";
import { openMultipart, type MultipartBody } from "../rest/multipart";
import { staffRouteContext } from "../trpc/trpc";
import { parseCookies, sendJson } from "./io";

/**
 * The Documents section's file routes, beside /trpc because they carry PDF bytes:
 * - `POST /staff/documents`: multipart with a `metadata` part (JSON: document_name,
 *   document_description, signingfield_koordinates) before the `file` part (the PDF). The same
 *   checks and storage as A6 (registerDocument); the new document starts as a draft.
 * - `GET /staff/documents/<id>/pdf[?version=N]`: a stored version's PDF, for the field editor.
 * The staff cookie authenticates both before a byte of the body is read; cross-site POSTs are
 * refused in the request listener. Errors use area A's envelope.
 */

const DOCUMENT_PDF = /^\/staff\/documents\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/pdf$/i;
/** The PDF cap plus room for the metadata part and the multipart framing. */
const MAX_UPLOAD_REQUEST_BYTES = MAX_PDF_BYTES + 64 * 1024;

const tooLarge = () =>
  new AppError("payload_too_large", `the file exceeds ${MAX_PDF_BYTES / (1024 * 1024)} MB`, { field: "file" });

function staffContext(
  services: Services,
  req: IncomingMessage,
  request: RequestMeta,
  procedure: "documents.create" | "documents.detail",
) {
  return staffRouteContext(
    { services, request, sessionCookie: parseCookies(req.headers.cookie)[SESSION_COOKIE] },
    procedure,
  );
}

function parseMetadata(raw: string | undefined) {
  if (raw === undefined)
    throw new AppError("invalid_request", "metadata: is required (a JSON part sent before the file)", {
      field: "metadata",
    });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new AppError("invalid_request", "metadata: is not valid JSON", { field: "metadata" });
  }
  assertStorableInput(value);
  const parsed = uploadDocumentMetadata.safeParse(value);
  if (!parsed.success) {
    const fieldErrors = parsed.error.issues.map((i) => ({ key: i.path.join(".") || "metadata", message: i.message }));
    throw new AppError(
      "invalid_request",
      `${fieldErrors[0]!.key}: ${fieldErrors[0]!.message}`,
      { field: fieldErrors[0]!.key },
      fieldErrors,
    );
  }
  return parsed.data;
}

/** Reads the one file part into memory, refusing it as soon as it passes the PDF cap. */
async function readPdfPart(body: MultipartBody): Promise<Buffer> {
  for await (const part of body.files) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.stream) {
      size += chunk.length;
      if (size > MAX_PDF_BYTES) {
        part.stream.destroy();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }
  throw new AppError("invalid_request", "file: is required (the PDF)", { field: "file" });
}

async function uploadDocument(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  request: RequestMeta,
): Promise<void> {
  const ctx = await staffContext(services, req, request, "documents.create");
  if (Number(req.headers["content-length"] ?? 0) > MAX_UPLOAD_REQUEST_BYTES) throw tooLarge();
  let body: MultipartBody | undefined;
  try {
    body = await openMultipart(req);
    const metadata = parseMetadata(body.fields.metadata);
    const bytes = await readPdfPart(body);
    const doc = await registerDocument(ctx, {
      name: metadata.document_name,
      description: metadata.document_description ?? null,
      accountName: null,
      fields: metadata.signingfield_koordinates,
      // A6 echoes the URL a document came from; an uploaded one comes from here.
      sourceUrl: (id) => `${services.config.publicApiUrl}/staff/documents/${id}/pdf`,
      availability: "draft",
      bytes,
      field: "file",
    });
    const answer: UploadDocumentOutput = { id: doc.id, name: doc.name, version: 1 };
    sendJson(res, 201, answer);
  } catch (error) {
    if (!body?.finished) {
      // What we refused is not read any further: answer, then close the connection.
      body?.abort();
      res.setHeader("connection", "close");
    }
    throw error;
  }
}

async function sendDocumentPdf(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  id: string,
  request: RequestMeta,
): Promise<void> {
  const ctx = await staffContext(services, req, request, "documents.detail");
  const rawVersion = url.searchParams.get("version");
  const version =
    rawVersion === null || rawVersion === "" ? undefined : /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : NaN;
  if (Number.isNaN(version))
    throw new AppError("invalid_request", "version: must be a whole number", { field: "version" });
  const pdf = await readDocumentPdf(ctx, { id, version });
  res.writeHead(200, {
    "content-type": "application/pdf",
    "content-length": String(pdf.bytes.length),
    "content-disposition": `inline; filename="document-${id}-v${pdf.version}.pdf"`,
    "x-document-version": String(pdf.version),
  });
  res.end(pdf.bytes);
}

/** Serves the Documents file routes; false when the path is not one of them. */
export async function handleStaffDocuments(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestMeta,
): Promise<boolean> {
  const pdf = DOCUMENT_PDF.exec(url.pathname);
  if (url.pathname !== "/staff/documents" && !pdf) return false;
  try {
    if (pdf && (req.method === "GET" || req.method === "HEAD"))
      await sendDocumentPdf(services, req, res, url, pdf[1]!.toLowerCase(), request);
    else if (!pdf && req.method === "POST") await uploadDocument(services, req, res, request);
    else throw new AppError("not_found", "no such endpoint");
  } catch (error) {
    if (!(error instanceof AppError) || res.headersSent) throw error;
    const { status, body } = renderError("A", error, request.requestId);
    sendJson(res, status, body);
  }
  return true;
}
