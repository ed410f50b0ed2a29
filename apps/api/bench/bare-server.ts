/**
 * The bare baseline: F4 as plainly as Node can serve it — `node:http`, the `postgres` driver and
 * nothing else. It runs the same SQL as our stack (token lookup by hash, the throttled
 * last_used_at update, the templates select) and answers with the same JSON, so the difference
 * in req/s is what our layers cost: routing, zod, tRPC, drizzle, the org scope, logging hooks.
 *
 * It also serves F7 (POST /api/embed/drafts) for bench/scenarios/extended.ts; see handleF7, and
 * the FHIR search by patient for bench/scenarios/fhir-search.ts; see handleFhirSearch.
 *
 * Started by bench/run.ts in its own process, so its RSS is measured alone.
 * Env: BARE_DATABASE_URL (required), BARE_PORT (required), BARE_POOL_SIZE (default 10, as the API),
 * DATABASE_PREPARED_STATEMENTS as the API reads it (see below).
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import postgres from "postgres";

const databaseUrl = process.env.BARE_DATABASE_URL;
const port = Number(process.env.BARE_PORT);
if (!databaseUrl || !Number.isInteger(port) || port <= 0) {
  console.error("bare-server: set BARE_DATABASE_URL and BARE_PORT");
  process.exit(1);
}

// Same pool size as packages/db's createDb, so the pool is not the difference. Each statement is
// sent as the API sends its counterpart, so the database does the same work on both sides: `kept`
// for those the API keeps prepared per connection (the token lookup, F7's save; off with
// DATABASE_PREPARED_STATEMENTS=false, as there), `adHoc` for those drizzle sends unnamed (parsed,
// described and planned on every call).
const sql = postgres(databaseUrl, {
  max: Number(process.env.BARE_POOL_SIZE ?? 10),
  prepare: true,
  onnotice: () => {},
});
const keepStatements = !["false", "0"].includes(process.env.DATABASE_PREPARED_STATEMENTS ?? "true");
type Parameters = postgres.ParameterOrJSON<never>[];
const kept = <T extends object[]>(text: string, parameters: Parameters) =>
  sql.unsafe<T>(text, parameters, { prepare: keepStatements });
const adHoc = <T extends object[]>(text: string, parameters: Parameters) =>
  sql.unsafe<T>(text, parameters, { prepare: false });

/** As in src/core/tokens/tokens.ts. */
const TOKEN_PREFIX = "cs_";
const LAST_USED_RESOLUTION_MS = 60_000;
const ORG_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_LIMIT = 300;

interface TokenRow {
  id: string;
  organization_id: string;
  token_hash: string;
  last_used_at: Date | null;
}

interface TemplateRow {
  identifier: string;
  title: string;
  status: string;
  updated_at: Date;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest();

/** Constant-time, like the API's safeEqual, so both sides pay for the same hashing. */
function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b)) && a.length === b.length;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
  });
  res.end(payload);
}

const unauthorized = (res: ServerResponse) =>
  send(res, 401, { ok: false, error: { code: "unauthorized", message: "invalid API token" } });

/**
 * The organization the token belongs to, or null; the same two statements as authenticateApiToken.
 * With `orgId` (F4, F7) the token must be that organization's; without (FHIR) the token says which.
 */
async function authenticate(token: string, orgId?: string): Promise<string | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200 || (orgId !== undefined && !ORG_ID.test(orgId)))
    return null;
  const hash = sha256(token).toString("hex");
  const [row] = await kept<TokenRow[]>(
    "select id, organization_id, token_hash, last_used_at from api_tokens where token_hash = $1 and revoked_at is null limit 1",
    [hash],
  );
  if (!row || !safeEqual(row.token_hash, hash)) return null;
  if (orgId !== undefined && !safeEqual(row.organization_id, orgId.toLowerCase())) return null;
  if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    const staleBefore = new Date(Date.now() - LAST_USED_RESOLUTION_MS);
    await adHoc(
      "update api_tokens set last_used_at = $1 where id = $2 and (last_used_at is null or last_used_at < $3)",
      [new Date(), row.id, staleBefore],
    );
  }
  return row.organization_id;
}

/** F4's query: `select *`, as drizzle's scope.select issues it, then the list-item mapping. */
async function listTemplates(organizationId: string, limit: number) {
  const rows = await adHoc<TemplateRow[]>(
    "select * from templates where organization_id = $1 order by updated_at desc, id desc limit $2",
    [organizationId, limit],
  );
  return rows.map((row) => ({
    identifier: row.identifier,
    title: row.title,
    status: row.status,
    updatedAt: row.updated_at.toISOString(),
  }));
}

async function handleF4(url: URL, res: ServerResponse): Promise<void> {
  const token = url.searchParams.get("token") ?? "";
  const orgId = url.searchParams.get("orgId") ?? "";
  const rawLimit = url.searchParams.get("limit") ?? String(MAX_LIMIT);
  const limit = Number(rawLimit);
  if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_LIMIT) {
    return send(res, 400, { ok: false, error: { code: "invalid_request", message: "limit: must be 1-300" } });
  }
  const organizationId = await authenticate(token, orgId);
  if (!organizationId) return unauthorized(res);
  send(res, 200, { ok: true, templates: await listTemplates(organizationId, limit) });
}

/** The request body as a JSON object (F7 bodies are small; 1 MiB cap as a guard). */
async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1024 * 1024) return null;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * F7 (bench/scenarios/extended.ts): the same token lookup, the same active-template lookup as
 * resolveFormTemplate and the same atomic upsert as src/core/drafts/drafts.ts (`values || new`),
 * autocommitted. It does not append the audit entry (advisory lock + last-entry select + insert)
 * nor the webhook outbox rows that saveDraft adds inside its transaction: that is part of the gap.
 */
async function handleF7(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req);
  const { token, orgId, templateIdentifier, draftKey, values } = body ?? {};
  if (
    typeof templateIdentifier !== "string" ||
    typeof draftKey !== "string" ||
    typeof values !== "object" ||
    values === null ||
    Array.isArray(values)
  ) {
    return send(res, 400, {
      ok: false,
      error: { code: "invalid_request", message: "templateIdentifier, draftKey and values are required" },
    });
  }
  const organizationId = await authenticate(
    typeof token === "string" ? token : "",
    typeof orgId === "string" ? orgId : "",
  );
  if (!organizationId) return unauthorized(res);
  const [template] = await kept<{ identifier: string; status: string }[]>(
    "select * from templates where organization_id = $1 and identifier = $2 limit 1",
    [organizationId, templateIdentifier],
  );
  if (!template || template.status !== "active") {
    return send(res, 404, { ok: false, error: { code: "not_found", message: "active template not found" } });
  }
  const [row] = await kept<{ id: string; updated_at: Date }[]>(
    `insert into drafts (id, organization_id, template_identifier, draft_key, values, created_at, updated_at)
    values ($1, $2, $3, $4, $5::jsonb, default, default)
    on conflict (organization_id, template_identifier, draft_key)
    do update set values = drafts.values || excluded.values, updated_at = now()
    returning id, updated_at`,
    [randomUUID(), organizationId, template.identifier, draftKey, JSON.stringify(values)],
  );
  send(res, 200, { ok: true, draftKey, savedAt: row!.updated_at.toISOString() });
}

/** `[created_at, seq]` of a `_page` cursor as the API writes it (base64url JSON, core/lists/keyset.ts), or null. */
function pageKey(cursor: string): [at: string, seq: number] | null {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(key) || key.length !== 2) return null;
  const [at, seq]: unknown[] = key;
  return typeof at === "string" && typeof seq === "number" && Number.isSafeInteger(seq) ? [at, seq] : null;
}

/**
 * GET /fhir/r4/QuestionnaireResponse?patient:identifier=…&_count=…[&_page=…] for
 * bench/scenarios/fhir-search.ts: the least any server answering that search does. The same token
 * lookup and the same index range as searchQuestionnaireResponses (submissions_org_rnummer_idx,
 * newest first, `_count + 1` rows to tell whether more follow, the keyset cursor), the rows
 * returned as they come from the driver. No mapping to QuestionnaireResponses, no Bundle: that
 * is part of the gap.
 */
async function handleFhirSearch(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
  const patient = url.searchParams.get("patient:identifier") ?? url.searchParams.get("subject:identifier") ?? "";
  // `[system|]value`: the value is what the rows hold.
  const rnummer = patient.slice(patient.indexOf("|") + 1);
  const rawCount = url.searchParams.get("_count") ?? "20";
  const count = Number(rawCount);
  const cursor = url.searchParams.get("_page");
  const after = cursor === null ? null : pageKey(cursor);
  if (!rnummer || !/^\d+$/.test(rawCount) || count < 1 || count > 100 || (cursor !== null && !after)) {
    return send(res, 400, { error: "patient:identifier, _count 1-100 and a valid _page are required" });
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
  const organizationId = await authenticate(bearer?.[1] ?? "");
  if (!organizationId) return unauthorized(res);
  const rows = await adHoc<{ cursor_at: string; seq: string }[]>(
    `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
    from submissions
    where organization_id = $1 and rnummer = $2 and rnummer_patient_reported = false
      ${after ? "and (created_at, seq) < ($4::timestamptz, $5::bigint)" : ""}
    order by created_at desc, seq desc limit $3`,
    [organizationId, rnummer, count + 1, ...(after ?? [])],
  );
  const page = rows.slice(0, count);
  const last = page.at(-1);
  const next =
    rows.length > count && last
      ? Buffer.from(JSON.stringify([last.cursor_at, Number(last.seq)]), "utf8").toString("base64url")
      : null;
  send(res, 200, { rows: page, next });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://internal");
  if (url.pathname === "/healthz") return send(res, 200, { ok: true });
  if (url.pathname === "/api/embed/templates" && req.method === "GET") return handleF4(url, res);
  if (url.pathname === "/api/embed/drafts" && req.method === "POST") return handleF7(req, res);
  if (url.pathname === "/fhir/r4/QuestionnaireResponse" && req.method === "GET") return handleFhirSearch(req, url, res);
  send(res, 404, { ok: false, error: { code: "not_found", message: "no such endpoint" } });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error("bare-server:", error);
    if (!res.headersSent) send(res, 500, { ok: false, error: { code: "internal_error", message: "internal error" } });
    else res.destroy();
  });
});
// Same keep-alive settings as src/http/server.ts.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, "127.0.0.1");

const stop = () => {
  server.close();
  server.closeAllConnections();
  void sql.end({ timeout: 5 }).finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
