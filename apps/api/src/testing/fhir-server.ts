import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FhirResponse, FhirRouter, HttpMethod, MemoryRepository } from "@medplum/fhir-router";
import { createAuthority, type Authority, type FhirClient } from "./fhir-server-auth";
import {
  errorOutcome,
  loadMedplum,
  profileOutcome,
  validationOutcome,
  type FhirResource,
  type Medplum,
} from "./fhir-server-medplum";
import { runTransaction } from "./fhir-server-transaction";

export type { FhirClient } from "./fhir-server-auth";
export { CLIENT_ASSERTION_TYPE } from "./fhir-server-auth";
export type { FhirResource, OperationOutcome } from "./fhir-server-medplum";

/**
 * A hospital's FHIR R4 server on loopback, for the FHIR push tests: Medplum's own REST router
 * and in-memory repository (`@medplum/fhir-router`) behind a plain HTTP server, so conditional
 * create, `urn:uuid:` references, searches and the transaction-response Bundle are Medplum's
 * behaviour, not ours (what the harness adds to transactions: fhir-server-transaction.ts).
 *
 * In front of the router, in this order: failure injection (`failNext`), the bearer token (401),
 * the body's media type (415) and JSON (400), R4 validation of the body and of every Bundle entry
 * (400, Medplum's OperationOutcome), then the test's `profileCheck` (422).
 */

/**
 * What the next requests to the FHIR base get instead of an answer:
 * - `5xx`: 503 with a `transient` OperationOutcome, nothing processed;
 * - `422`: 422 with a `business-rule` OperationOutcome, nothing processed;
 * - `timeout`: processed and stored, but the answer is withheld and the connection left open
 *   until the client gives up (the hospital committed, the sender never heard: a retry must not
 *   duplicate);
 * - `close`: the connection is dropped once the body has arrived, nothing processed.
 */
export type FhirFailure = "5xx" | "422" | "timeout" | "close";

export interface ReceivedFhirRequest {
  method: string;
  /** Path and query as sent, e.g. `/fhir/R4/Observation?subject=Patient/1`. */
  path: string;
  /** The JSON body (the raw text when it is not JSON); the token endpoint's form, holding secrets, is not kept. */
  body?: unknown;
  /** The status answered; undefined while pending, after `close`, and after `timeout` (answer withheld). */
  status?: number;
  injected?: FhirFailure;
}

export interface FhirServerOptions {
  /** A fixed bearer token; when set (or once a client is registered) every FHIR request needs one. */
  token?: string;
  /** Where the FHIR API lives; default `/fhir/R4`, so base URLs with a path are exercised. */
  basePath?: string;
  /** Lifetime of the tokens the token endpoint issues; default 300 s. */
  tokenLifetimeSeconds?: number;
  /** Problems of one resource against a profile (e.g. the ISiK rules); any answer 422 naming them. */
  profileCheck?: (resource: FhirResource) => readonly string[];
}

export interface TestFhirServer {
  /** e.g. `http://127.0.0.1:41234/fhir/R4` */
  baseUrl: string;
  /** The OAuth2 token endpoint, `http://127.0.0.1:<port>/oauth2/token`. */
  tokenUrl: string;
  /** `127.0.0.1:<port>`, for OUTBOUND_ALLOW_HOSTS. */
  hostPort: string;
  token: string | undefined;
  /** Medplum's in-memory repository: seed what the hospital already holds (e.g. its Patient). */
  repository: MemoryRepository;
  /** Every request, token endpoint included, in order of arrival. */
  received: ReceivedFhirRequest[];
  /** What the repository holds of `type`, optionally narrowed by a FHIR search (`identifier=sys|1`). */
  resources(type: string, search?: string): Promise<FhirResource[]>;
  /** A client of the token endpoint (a secret, or the JWKs its SMART assertions are signed with). */
  registerClient(client: FhirClient): void;
  /** The next `count` requests to the FHIR base fail as `kind` says, then answers are normal again. */
  failNext(kind: FhirFailure, count?: number): void;
  /** Drops every connection and frees the port. */
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface FhirServerState {
  medplum: Medplum;
  router: FhirRouter;
  repository: MemoryRepository;
  authority: Authority;
  basePath: string;
  baseUrl: string;
  profileCheck: FhirServerOptions["profileCheck"];
  failures: FhirFailure[];
  received: ReceivedFhirRequest[];
  /** Writes run one at a time, so a transaction's rollback never undoes another request's work. */
  writes: Promise<unknown>;
}

const TOKEN_PATH = "/oauth2/token";
const FHIR_JSON = "application/fhir+json; charset=utf-8";
const HTTP_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

export async function startFhirServer(options: FhirServerOptions = {}): Promise<TestFhirServer> {
  const medplum = await loadMedplum();
  const basePath = (options.basePath ?? "/fhir/R4").replace(/\/$/, "");
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const hostPort = `127.0.0.1:${(http.address() as AddressInfo).port}`;
  const tokenUrl = `http://${hostPort}${TOKEN_PATH}`;
  const state: FhirServerState = {
    medplum,
    router: medplum.newRouter(),
    repository: medplum.newRepository(),
    authority: createAuthority({
      fixedToken: options.token,
      tokenUrl,
      lifetimeSeconds: options.tokenLifetimeSeconds ?? 300,
    }),
    basePath,
    baseUrl: `http://${hostPort}${basePath}`,
    profileCheck: options.profileCheck,
    failures: [],
    received: [],
    writes: Promise.resolve(),
  };
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    serve(state, req, res).catch((error: unknown) => {
      send(res, { status: 500, body: errorOutcome("exception", String(error)) });
    });
  });
  return {
    baseUrl: state.baseUrl,
    tokenUrl,
    hostPort,
    token: options.token,
    repository: state.repository,
    received: state.received,
    resources: (type, search = "") =>
      state.repository.searchResources(medplum.core.parseSearchRequest(`${type}?${search}`)),
    registerClient: (client) => state.authority.registerClient(client),
    failNext: (kind, count = 1) => void state.failures.push(...Array<FhirFailure>(count).fill(kind)),
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function serve(state: FhirServerState, req: IncomingMessage, res: ServerResponse) {
  const text = await readBody(req);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const record: ReceivedFhirRequest = { method: req.method ?? "", path: req.url ?? "" };
  state.received.push(record);
  if (url.pathname === TOKEN_PATH) return answer(res, record, await answerToken(state, req, text));
  if (text) record.body = parseJson(text) ?? text;
  const fhirPath = pathInBase(state.basePath, url);
  if (fhirPath === undefined)
    return answer(res, record, { status: 404, body: errorOutcome("not-found", `No FHIR base at ${url.pathname}`) });
  const failure = state.failures.shift();
  if (failure) record.injected = failure;
  if (failure === "close") return void req.socket.destroy();
  if (failure === "5xx")
    return answer(res, record, { status: 503, body: errorOutcome("transient", "Injected: service unavailable") });
  if (failure === "422")
    return answer(res, record, { status: 422, body: errorOutcome("business-rule", "Injected: unprocessable") });
  const result = await answerFhir(state, req, fhirPath + url.search, text);
  if (failure === "timeout") return; // processed; the answer never leaves
  answer(res, record, result);
}

/** The path below the FHIR base (`""` for the base itself), or undefined when outside it. */
function pathInBase(basePath: string, url: URL): string | undefined {
  if (url.pathname === basePath) return "";
  return url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : undefined;
}

async function answerToken(state: FhirServerState, req: IncomingMessage, text: string): Promise<Answer> {
  const isForm = req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded");
  const answer =
    req.method === "POST" && isForm
      ? await state.authority.issueToken(new URLSearchParams(text), req.headers.authorization)
      : { status: 400, body: { error: "invalid_request", error_description: "POST a form" } };
  return { ...answer, headers: { ...answer.headers, "content-type": "application/json" } };
}

/** The checks in front of the router (auth, media type, JSON, R4, profile), then the router. */
async function answerFhir(
  state: FhirServerState,
  req: IncomingMessage,
  fhirPath: string,
  text: string,
): Promise<Answer> {
  if (state.authority.required && !state.authority.isAuthorized(req.headers.authorization))
    return {
      status: 401,
      body: errorOutcome("login", "A valid bearer token is required"),
      headers: { "www-authenticate": 'Bearer realm="fhir"' },
    };
  const method = HTTP_METHODS.find((known) => known === req.method);
  if (!method) return { status: 405, body: errorOutcome("not-supported", `Method ${req.method} is not supported`) };
  if (text && !/^application\/(fhir\+json|json|json-patch\+json)\b/.test(req.headers["content-type"] ?? ""))
    return { status: 415, body: errorOutcome("not-supported", "Send application/fhir+json") };
  const body = text ? parseJson(text) : undefined;
  if (text && body === undefined) return { status: 400, body: errorOutcome("structure", "The body is not JSON") };
  if (body !== undefined && (method === "POST" || method === "PUT")) {
    const refused = checkResource(state, body);
    if (refused) return refused;
  }
  return routeToMedplum(state, { method, fhirPath, body, headers: req.headers });
}

/** R4 validation (400), then the test's profile check (422); undefined when the body passes both. */
function checkResource(state: FhirServerState, body: unknown): Answer | undefined {
  const invalid = validationOutcome(state.medplum, body);
  if (invalid) return { status: 400, body: invalid };
  if (!state.profileCheck || !state.medplum.core.isResource(body)) return undefined;
  const problems = profileOutcome(body, state.profileCheck);
  return problems ? { status: 422, body: problems } : undefined;
}

/** One request through Medplum's router; a transaction Bundle through the harness's all-or-nothing wrapper. */
async function routeToMedplum(
  state: FhirServerState,
  request: { method: HttpMethod; fhirPath: string; body: unknown; headers: IncomingHttpHeaders },
): Promise<Answer> {
  const { medplum, repository } = state;
  const handle = (body: unknown) =>
    state.router.handleRequest(
      {
        ...medplum.makeRequest(request.method, request.fhirPath, body),
        headers: request.headers,
        // Without it the router treats a transaction as a batch: failed entries, the rest stored.
        config: { transactions: true },
      },
      repository,
    );
  const work = async () => {
    // A copy: the log keeps the body as sent, and the router and the harness rewrite references.
    const body: unknown = structuredClone(request.body);
    const isTransaction =
      request.fhirPath === "" &&
      medplum.core.isResource(body) &&
      body.resourceType === "Bundle" &&
      body.type === "transaction";
    if (isTransaction) return runTransaction(medplum, repository, body, handle);
    return handle(body);
  };
  const response = request.method === "GET" || request.method === "HEAD" ? await work() : await serialized(state, work);
  return fromMedplum(state, request.method, response);
}

function serialized<T>(state: FhirServerState, work: () => Promise<T>): Promise<T> {
  const result = state.writes.then(work);
  state.writes = result.catch(() => undefined);
  return result;
}

/** Medplum's `[outcome, resource?]` as HTTP: the status its outcome names, Location and ETag as a FHIR server sends them. */
function fromMedplum(state: FhirServerState, method: HttpMethod, [outcome, resource]: FhirResponse): Answer {
  const status = state.medplum.core.getStatus(outcome);
  const headers: Record<string, string> = {};
  const versionId = resource?.meta?.versionId;
  if (versionId) headers.etag = `W/"${versionId}"`;
  if (status === 201 && method !== "GET" && resource?.id && versionId)
    headers.location = `${state.baseUrl}/${resource.resourceType}/${resource.id}/_history/${versionId}`;
  return { status, body: resource ?? outcome, headers };
}

function answer(res: ServerResponse, record: ReceivedFhirRequest, result: Answer): void {
  record.status = result.status;
  send(res, result);
}

function send(res: ServerResponse, result: Answer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(result.status, { "content-type": FHIR_JSON, ...result.headers });
  res.end(JSON.stringify(result.body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
