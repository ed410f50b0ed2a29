import type { IncomingMessage, ServerResponse } from "node:http";
import {
  documentReferenceSearchInput,
  fhirExtractInput,
  fhirReadInput as fhirIdShape,
  questionnaireImportInput,
  questionnaireResponseSearchInput,
  questionnaireSearchInput,
} from "@clinsign/contracts";
import type { Services } from "../core/context";
import { authenticateApiToken } from "../core/credentials/api-tokens";
import { AppError, errorMapping } from "../core/errors";
import { capabilityStatement } from "../core/fhir-mapping/capability";
import { operationOutcome, type IssueType, type OutcomeIssue } from "../core/fhir-mapping/resources";
import { bearerToken, readJsonObject } from "../wire/io";
import { createCaller } from "../trpc/root";
import type { Principal } from "../trpc/trpc";
import { toAppError } from "./envelopes";
import type { RestRequest } from "./route-types";
import { parseInput } from "./validation";

/**
 * The FHIR R4 door, `/fhir/r4/`: `application/fhir+json` in and out, the organization's API
 * tokens as `Authorization: Bearer`, HTTPS only (like area A), every call through the same tRPC
 * procedures (`fhir.*`) and services as the other doors, and every error an OperationOutcome
 * with the status of `errorMapping` (422 where the services refuse a resource they cannot map).
 */
export const FHIR_BASE = "/fhir/r4";
const FHIR_JSON = "application/fhir+json; charset=utf-8";

type Caller = ReturnType<typeof createCaller>;

interface FhirRoute {
  method: "GET" | "POST";
  /** The resource type, and whether the path names an instance (`/{type}/{id}`). */
  type: string;
  instance: boolean;
  /** An operation after the type or instance (`$extract`). */
  operation?: string;
  call(
    caller: Caller,
    input: { id?: string; query: Record<string, unknown>; body?: Record<string, unknown>; prefer: string },
  ): Promise<FhirReply>;
}

interface FhirReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const ok = (body: unknown): FhirReply => ({ status: 200, body });

const fhirRoutes: FhirRoute[] = [
  {
    method: "GET",
    type: "Questionnaire",
    instance: true,
    call: async (c, i) => ok(await c.fhir.questionnaire({ id: i.id! })),
  },
  {
    method: "GET",
    type: "Questionnaire",
    instance: false,
    call: async (c, i) => ok(await c.fhir.questionnaires(parseInput(questionnaireSearchInput, i.query))),
  },
  {
    method: "POST",
    type: "Questionnaire",
    instance: false,
    call: async (c, i) => {
      const created = await c.fhir.importQuestionnaire(
        parseInput(questionnaireImportInput, { resource: i.body, prefer: i.prefer }),
      );
      const location = `${FHIR_BASE}/Questionnaire/${created.identifier}`;
      const body =
        i.prefer === "OperationOutcome" ? created.outcome : i.prefer === "minimal" ? undefined : created.questionnaire;
      return { status: 201, body, headers: { location } };
    },
  },
  {
    method: "GET",
    type: "QuestionnaireResponse",
    instance: true,
    call: async (c, i) => ok(await c.fhir.questionnaireResponse({ id: i.id! })),
  },
  {
    method: "GET",
    type: "QuestionnaireResponse",
    instance: false,
    call: async (c, i) =>
      ok(await c.fhir.questionnaireResponses(parseInput(questionnaireResponseSearchInput, i.query))),
  },
  // SDC $extract (observation-based): of a stored response, or of one sent in the body.
  ...(["GET", "POST"] as const).map((method): FhirRoute => ({
    method,
    type: "QuestionnaireResponse",
    instance: true,
    operation: "$extract",
    call: async (c, i) => ok(await c.fhir.extract({ id: i.id! })),
  })),
  {
    method: "POST",
    type: "QuestionnaireResponse",
    instance: false,
    operation: "$extract",
    call: async (c, i) => ok(await c.fhir.extract(parseInput(fhirExtractInput, { resource: i.body }))),
  },
  {
    method: "GET",
    type: "DocumentReference",
    instance: true,
    call: async (c, i) => ok(await c.fhir.documentReference({ id: i.id! })),
  },
  {
    method: "GET",
    type: "DocumentReference",
    instance: false,
    call: async (c, i) => ok(await c.fhir.documentReferences(parseInput(documentReferenceSearchInput, i.query))),
  },
];

/** AppError codes as issue types (http://hl7.org/fhir/issue-type). */
const ISSUE_TYPE: Record<AppError["code"], IssueType> = {
  invalid_request: "invalid",
  unauthorized: "login",
  forbidden: "forbidden",
  https_required: "security",
  not_found: "not-found",
  conflict: "conflict",
  payload_too_large: "too-costly",
  unsupported_media_type: "not-supported",
  rate_limited: "throttled",
  service_unavailable: "transient",
  internal_error: "exception",
};

function send(res: ServerResponse, reply: FhirReply) {
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers ?? {});
    return void res.end();
  }
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": FHIR_JSON,
    "content-length": Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

/** An AppError as an OperationOutcome with its status; the request id rides in the outcome's id. */
export function fhirError(error: AppError, requestId: string): FhirReply {
  const issues = error.details.fhirIssues as OutcomeIssue[] | undefined;
  const status = (error.details.fhirStatus as number | undefined) ?? errorMapping[error.code].status;
  const issue: OutcomeIssue[] = issues?.length
    ? issues
    : [
        {
          severity: "error",
          code: ISSUE_TYPE[error.code],
          diagnostics: error.message,
          ...(typeof error.details.field === "string" && { expression: [error.details.field] }),
        },
      ];
  const headers: Record<string, string> = {};
  if (error.code === "unauthorized") headers["www-authenticate"] = 'Bearer realm="fhir"';
  if (typeof error.details.retryAfterSeconds === "number")
    headers["retry-after"] = String(error.details.retryAfterSeconds);
  // The request id names the outcome where it is a valid FHIR id (a caller's X-Request-Id may not be).
  const id = /^[A-Za-z0-9.-]{1,64}$/.test(requestId) ? requestId : undefined;
  return { status, body: operationOutcome(issue, id), headers };
}

/** Query parameters: `authored` may repeat (a range), others are single. */
function searchParams(url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) {
    if (name === "authored") out.authored = [...((out.authored as string[] | undefined) ?? []), value];
    else if (!(name in out)) out[name] = value;
    else throw new AppError("invalid_request", `${name}: give it once`, { field: name });
  }
  return out;
}

function preferOf(req: IncomingMessage): string {
  const match = /return=(minimal|representation|OperationOutcome)/.exec(String(req.headers.prefer ?? ""));
  return match?.[1] ?? "representation";
}

/** JSON only: an Accept (or `_format`) that rules out JSON is 406. */
function acceptsJson(req: IncomingMessage, url: URL): boolean {
  const format = url.searchParams.get("_format");
  if (format && !/json/.test(format)) return false;
  const accept = req.headers.accept;
  return !accept || /json|\*\/\*|application\/\*/.test(accept);
}

/**
 * Serves `/fhir/r4` and the paths below it (the route table's `fhir` entry). Over HTTPS only (or
 * plain HTTP where the development switch allows it), as area A.
 */
export async function serveFhir(services: Services, { req, res, url, request, secure }: RestRequest): Promise<void> {
  try {
    if (!secure) throw new AppError("https_required", "this endpoint is served over HTTPS only");
    if (!acceptsJson(req, url)) {
      send(res, {
        status: 406,
        body: operationOutcome(
          [{ severity: "error", code: "not-supported", diagnostics: "only application/fhir+json is served" }],
          request.requestId,
        ),
      });
      return;
    }
    const parts = url.pathname.slice(FHIR_BASE.length).split("/").filter(Boolean);
    const method = req.method ?? "GET";
    if (parts.length === 1 && parts[0] === "metadata") {
      if (method !== "GET" && method !== "HEAD") throw methodNotAllowed(method);
      send(res, ok(capabilityStatement(services.config.publicApiUrl)));
      return;
    }
    const [type, ...below] = parts;
    // An operation is the last segment: `/{type}/$op` or `/{type}/{id}/$op`.
    const operation = below.at(-1)?.startsWith("$") ? below.pop() : undefined;
    const [id, ...rest] = below;
    const candidates = fhirRoutes.filter(
      (r) => r.type === type && r.instance === (id !== undefined) && r.operation === operation,
    );
    if (!type || rest.length || candidates.length === 0)
      throw new AppError("not_found", `${FHIR_BASE}/${parts.join("/")} is not supported; see ${FHIR_BASE}/metadata`);
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      const reply = fhirError(methodNotAllowed(method), request.requestId);
      reply.status = 405;
      reply.headers = { ...reply.headers, allow: [...new Set(candidates.map((r) => r.method))].join(", ") };
      send(res, reply);
      return;
    }
    const principal: Principal = { kind: "token", ...(await authenticateApiToken(services.db, bearerToken(req))) };
    const query = searchParams(url);
    let body: Record<string, unknown> | undefined;
    if (method === "POST") {
      const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (type !== "application/fhir+json" && type !== "application/json")
        throw new AppError("unsupported_media_type", "send the resource as application/fhir+json");
      body = await readJsonObject(req);
    }
    const input = {
      id: id === undefined ? undefined : (parseInput(fhirIdShape, { id }, "id") as { id: string }).id,
      query,
      body,
      prefer: preferOf(req),
    };
    const caller = createCaller({ services, request, principal, setCookie: () => {} });
    send(res, await route.call(caller, input));
  } catch (error) {
    const app = toAppError(error);
    if (!app) services.log.error({ err: error, requestId: request.requestId }, "fhir request failed");
    send(res, fhirError(app ?? new AppError("internal_error", "internal error"), request.requestId));
  }
}

const methodNotAllowed = (method: string) => new AppError("invalid_request", `method ${method} is not allowed here`);
