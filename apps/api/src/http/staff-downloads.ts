import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { auditExportQuery, submissionExportQuery } from "@clinsign/contracts";
import type { z } from "zod";
import { exportAuditCsv } from "../core/audit/audit-log";
import type { RequestMeta, Services } from "../core/context";
import { AppError } from "../core/errors";
import { SESSION_COOKIE } from "../core/staff/staff";
import { assertStorableInput } from "../core/storable-text";
import { exportSubmissionsCsv, exportSubmissionsJson } from "../core/submissions/export";
import { renderSubmissionPdf } from "../core/submissions/pdf";
import { staffRouteContext } from "../trpc/trpc";
import { renderError } from "../rest/envelopes";
import { parseCookies, sendJson } from "./io";

/**
 * Staff downloads that are files, not JSON answers, so they are GET routes beside /trpc rather
 * than procedures: the submissions export (CSV or JSON, streamed page by page so memory stays
 * flat), one submission as a PDF, and the audit log as CSV (owners and admins). The staff cookie
 * authenticates them; the web app reaches them through its same-origin /staff/* route.
 * Errors use area A's envelope, `{"error": {"code", "message", "details"}}`.
 */

export const STAFF_DOWNLOAD_PREFIX = "/staff/";
const SUBMISSION_PDF = /^\/staff\/submissions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/pdf$/i;

function parseQuery<Schema extends z.ZodType>(schema: Schema, url: URL): z.infer<Schema> {
  const raw = Object.fromEntries([...url.searchParams].filter(([, value]) => value !== ""));
  assertStorableInput(raw);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors = parsed.error.issues.map((i) => ({ key: i.path.join(".") || "query", message: i.message }));
    throw new AppError(
      "invalid_request",
      `${fieldErrors[0]!.key}: ${fieldErrors[0]!.message}`,
      { field: fieldErrors[0]!.key },
      fieldErrors,
    );
  }
  return parsed.data;
}

/**
 * Until the response can take more, or the client went away. The listener that did not fire is
 * removed: a long export waits thousands of times, and leftovers would pile up on the response.
 */
async function drainedOrClosed(res: ServerResponse): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([
      once(res, "drain", { signal: settled.signal }),
      once(res, "close", { signal: settled.signal }),
    ]);
  } finally {
    settled.abort();
  }
}

/**
 * Writes a generated body with backpressure. The first chunk is awaited before the status line,
 * so a refusal (403) or bad filter (400) still becomes a proper error answer; a failure after
 * that can only cut the download short, which the client sees as an incomplete transfer.
 */
async function stream(
  res: ServerResponse,
  headers: Record<string, string>,
  body: AsyncGenerator<string>,
): Promise<void> {
  const first = await body.next();
  res.writeHead(200, headers);
  if (!first.done) res.write(first.value);
  let closed = false;
  res.once("close", () => (closed = true));
  try {
    for await (const chunk of body) {
      if (closed) break;
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    await body.return(undefined);
  }
}

const today = () => new Date().toISOString().slice(0, 10);

/** Serves the staff download routes; false when the path is not one of them. */
export async function handleStaffDownload(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestMeta,
): Promise<boolean> {
  try {
    return await serveDownload(services, req, res, url, request);
  } catch (error) {
    if (!(error instanceof AppError) || res.headersSent) throw error;
    const { status, body } = renderError("A", error, request.requestId);
    sendJson(res, status, body);
    return true;
  }
}

async function serveDownload(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  request: RequestMeta,
): Promise<boolean> {
  const pdf = SUBMISSION_PDF.exec(url.pathname);
  const route =
    url.pathname === "/staff/submissions/export"
      ? "submissions"
      : url.pathname === "/staff/audit-log/export"
        ? "audit"
        : pdf
          ? "pdf"
          : null;
  if (!route) return false;
  if (req.method !== "GET") throw new AppError("not_found", "no such endpoint");
  const procedure = route === "audit" ? "audit.entries" : route === "pdf" ? "submissions.get" : "submissions.list";
  const ctx = await staffRouteContext(
    { services, request, sessionCookie: parseCookies(req.headers.cookie)[SESSION_COOKIE] },
    procedure,
  );

  if (route === "pdf") {
    const bytes = await renderSubmissionPdf(ctx, { id: pdf![1]!.toLowerCase() });
    res.writeHead(200, {
      "content-type": "application/pdf",
      "content-length": String(bytes.length),
      "content-disposition": `attachment; filename="submission-${pdf![1]!.toLowerCase()}.pdf"`,
    });
    res.end(Buffer.from(bytes));
    return true;
  }
  if (route === "submissions") {
    const { format, sort, ...filter } = parseQuery(submissionExportQuery, url);
    const csv = format === "csv";
    await stream(
      res,
      {
        "content-type": csv ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="submissions-${today()}.${format}"`,
      },
      csv ? exportSubmissionsCsv(ctx, filter, sort) : exportSubmissionsJson(ctx, filter, sort),
    );
    return true;
  }
  const { sort, ...filter } = parseQuery(auditExportQuery, url);
  await stream(
    res,
    {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="audit-log-${today()}.csv"`,
    },
    exportAuditCsv(ctx, filter, sort),
  );
  return true;
}
