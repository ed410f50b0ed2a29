import { z } from "zod";
import { areaAErrorBody, areaBErrorBody, type ErrorCode } from "@clinsign/contracts";
import { errorMapping } from "../core/errors";
import { MAX_JSON_BODY_BYTES } from "../wire/io";
import { sampleOf, type JsonSchema } from "./openapi-examples";
import { documentedRoutes, type ApiRoute } from "./routes";
import { webhookSection } from "./openapi-webhooks";

const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;

const BODY_CREDENTIALS =
  "Area B credentials: `token` (API token) with `orgId` (its organization's UUID); or `Authorization: Bearer <API token>` " +
  "instead, where the token names the organization (an `orgId` sent with it must be the token's).";

const credentialProperties: Record<string, JsonSchema> = {
  token: {
    type: "string",
    description: "API token of the organization (a credential; or send `Authorization: Bearer`)",
  },
  orgId: { type: "string", format: "uuid", description: "organization UUID, with `token` (a credential)" },
};

const sessionProperty: Record<string, JsonSchema> = {
  sessionId: {
    type: "string",
    description: "embed session (POST /api/embed/sessions); a credential that replaces token and orgId",
  },
};

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

const STATUS_CODES = (status: number) =>
  (Object.entries(errorMapping) as [ErrorCode, { status: number }][])
    .filter(([, m]) => m.status === status)
    .map(([c]) => c);

/** Why each error status can come, as far as the route's auth, body and path tell. */
function derivedErrors(route: ApiRoute): Record<number, string> {
  const errors: Record<number, string> = {
    400: "invalid input: `fieldErrors` (area B) or `details.field` (area A) name the field",
  };
  if (route.auth !== "public") errors[401] = "missing or invalid credentials";
  if (route.auth === "bearer") errors[403] = "`https_required`: the request came over plain HTTP";
  if (route.auth === "orgTokenOrSession")
    errors[403] = "the embed session belongs to another template, or is bound to another draftKey";
  if (pathParams(route.path).length) errors[404] = "not found, or another organization's";
  if (route.body === "pdf" || route.body === "multipart") {
    errors[413] = "the upload is larger than its cap";
    errors[415] = "the body is not multipart/form-data" + (route.body === "pdf" ? " or application/pdf" : "");
  } else if (route.method !== "GET") {
    errors[413] = `the JSON body is larger than ${MAX_JSON_BODY_BYTES / 1024 / 1024} MiB`;
    errors[415] = "the body is not application/json";
  }
  if (route.auth === "orgTokenOrSession") errors[429] = "an embed session calls more than 120 times a minute";
  errors[500] = "internal error (the body carries only the request id)";
  for (const [status, why] of Object.entries(route.errors ?? {})) {
    const code = Number(status);
    errors[code] = errors[code] ? `${errors[code]}; ${why}` : why;
  }
  return errors;
}

const ERROR_MESSAGES: Record<number, string> = {
  400: "templateIdentifier: is required",
  401: "invalid API token",
  403: "forbidden",
  404: "template not found",
  409: "conflict",
  413: "request body exceeds 1048576 bytes",
  415: "send the body as application/json",
  429: "too many attempts; try again later",
  500: "internal error",
};

function errorResponse(route: ApiRoute, status: number, description: string) {
  const codes = STATUS_CODES(status);
  const message = ERROR_MESSAGES[status] ?? "error";
  const requestId = "9f2c4e0a-1b3d-4c5e-8f7a-6b5c4d3e2f10";
  let schema: JsonSchema;
  let example: unknown;
  if (route.area === "A") {
    schema = toSchema(areaAErrorBody, "output");
    // Each status carries only its own codes.
    const error = schema.properties!.error!;
    error.properties!.code = { type: "string", enum: codes };
    example = { error: { code: codes[0], message, details: { requestId } } };
  } else {
    schema = toSchema(areaBErrorBody, "output");
    example = { ok: false, error: message, requestId };
  }
  return {
    description,
    ...(status === 429 && {
      headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" } } },
    }),
    content: { "application/json": { schema, example } },
  };
}

const tagOf = (route: ApiRoute) =>
  route.auth === "public" ? "Verification" : route.area === "A" ? "Signatures (area A)" : "Forms (area B)";

function security(route: ApiRoute) {
  if (route.auth === "public") return [];
  if (route.auth === "bearer") return [{ bearer: [] }];
  const acceptsEmbedSession = route.auth === "orgTokenOrSession";
  if (route.method === "GET")
    return [{ token: [], orgId: [] }, { bearer: [] }, ...(acceptsEmbedSession ? [{ sessionId: [] }] : [])];
  if (route.body === "multipart")
    return [
      { token: [], orgId: [] },
      { bearer: [] },
      { sessionId: [] },
      { sessionHeader: [] },
      // token + orgId or sessionId as text fields of the body.
      {},
    ];
  // token + orgId (or sessionId) in the JSON body: no security scheme can say "in the body".
  return [{ bearer: [] }, {}];
}

/**
 * What an operation's parameters and body are made of: the input's JSON schema, the names that
 * travel in the path, the fields left for the query or the body, the credentials the route reads
 * there, and the input's example.
 */
interface OperationInput {
  input: JsonSchema;
  inPath: Set<string>;
  /** Whether a field belongs in the query or body: path parameters do not, except those the body must repeat (A7 `id`). */
  inBody: (name: string) => boolean;
  properties: Record<string, JsonSchema>;
  required: string[];
  withCredentials: boolean;
  credentials: Record<string, JsonSchema>;
  exampleInput: Record<string, unknown>;
}

function operationInput(route: ApiRoute): OperationInput {
  const input = toSchema(route.input, "input");
  const inPath = new Set(pathParams(route.path));
  const inBody = (name: string) => !inPath.has(name) || (route.bodyEchoes?.includes(name) ?? false);
  const withSession = route.auth === "orgTokenOrSession";
  return {
    input,
    inPath,
    inBody,
    properties: Object.fromEntries(Object.entries(input.properties ?? {}).filter(([name]) => inBody(name))),
    required: (input.required ?? []).filter(inBody),
    withCredentials: route.auth !== "bearer" && route.auth !== "public",
    credentials: withSession ? { ...credentialProperties, ...sessionProperty } : credentialProperties,
    exampleInput: {
      ...(sampleOf(input) as Record<string, unknown>),
      ...route.example?.request,
    },
  };
}

/** The path parameters, each with its schema from the input and an example. */
function pathParameters({ input, inPath, exampleInput }: OperationInput): unknown[] {
  return [...inPath].map((name) => ({
    name,
    in: "path",
    required: true,
    schema: input.properties?.[name] ?? { type: "string" },
    example: exampleInput[name] ?? sampleOf(input.properties?.[name], name),
  }));
}

/** A GET's query parameters: credentials first, then the input's fields. */
function queryParameters({ withCredentials, credentials, properties, required, exampleInput }: OperationInput) {
  const parameters: unknown[] = [];
  // Optional, since `Authorization: Bearer` (or a sessionId) may stand in for them.
  if (withCredentials)
    for (const [name, schema] of Object.entries(credentials))
      parameters.push({ name, in: "query", required: false, schema, description: schema.description });
  for (const [name, schema] of Object.entries(properties)) {
    const example = exampleInput[name];
    parameters.push({
      name,
      in: "query",
      required: required.includes(name),
      schema,
      ...(example !== undefined && { example }),
    });
  }
  return parameters;
}

/** `/verify`'s body: one PDF, raw or as the `file` part of a multipart body. */
function pdfRequestBody() {
  const file = { type: "string", format: "binary" };
  return {
    required: true,
    content: {
      "application/pdf": { schema: file },
      "multipart/form-data": { schema: { type: "object", properties: { file }, required: ["file"] } },
    },
  };
}

/** A JSON or multipart body: the credentials beside the input's fields; uploads add their files. */
function fieldsRequestBody(route: ApiRoute, shape: OperationInput) {
  const { inBody, properties, required, withCredentials, credentials, exampleInput } = shape;
  const bodyExample = Object.fromEntries(Object.entries(exampleInput).filter(([name]) => inBody(name)));
  const body: JsonSchema = {
    type: "object",
    ...(withCredentials && { description: BODY_CREDENTIALS }),
    properties: withCredentials ? { ...credentials, ...properties } : properties,
    required,
  };
  const media = route.body === "multipart" ? "multipart/form-data" : "application/json";
  if (route.body === "multipart") {
    body.properties = {
      ...body.properties,
      files: {
        type: "array",
        items: { type: "string", format: "binary" },
        description: "the files, one part each, after the text fields; the parts' name is free (`files`, `file` …)",
      },
    };
    body.required = required.filter((name) => name !== "files");
    delete bodyExample.files;
  }
  const example = withCredentials
    ? {
        token: "cs_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx",
        orgId: "3f2b8c1e-5d4a-4b6f-9c7e-1a2b3c4d5e6f",
        ...bodyExample,
      }
    : bodyExample;
  return {
    required: required.length > 0 || withCredentials,
    content: { [media]: { schema: body, ...(route.body !== "multipart" && { example }) } },
  };
}

/** The success answer, every error status the route can answer, and its other reply. */
function responsesOf(route: ApiRoute): Record<string, unknown> {
  const outputSchema = route.produces ? { type: "string", format: "binary" } : toSchema(route.output, "output");
  const success = route.produces
    ? { [route.produces]: { schema: outputSchema } }
    : { "application/json": { schema: outputSchema, example: route.example?.response ?? sampleOf(outputSchema) } };
  const responses: Record<string, unknown> = {
    [String(route.status)]: {
      description: "success",
      ...(route.produces && {
        headers: { "Content-Disposition": { schema: { type: "string" }, description: "attachment; filename=…" } },
      }),
      content: success,
    },
  };
  for (const [status, why] of Object.entries(derivedErrors(route)))
    responses[status] = errorResponse(route, Number(status), why);
  // Node's HTTP parser answers this before the service sees the request: no body.
  responses["431"] = { description: "the request line or headers exceed 16 KiB (e.g. a very long query); no body" };
  if (route.otherReply) {
    const schema = toSchema(route.otherReply.body, "output");
    responses[String(route.otherReply.status)] = {
      description: route.otherReply.description,
      content: { "application/json": { schema, example: route.otherReply.example } },
    };
  }
  return responses;
}

function operation(route: ApiRoute) {
  const shape = operationInput(route);
  const parameters = pathParameters(shape);
  let requestBody: unknown;
  if (route.body === "pdf") requestBody = pdfRequestBody();
  else if (route.method === "GET") parameters.push(...queryParameters(shape));
  else requestBody = fieldsRequestBody(route, shape);
  const { withCredentials } = shape;
  return {
    operationId: `${route.ref}_${route.method.toLowerCase()}`,
    summary: `${route.ref}: ${route.summary}`,
    ...((route.description || withCredentials) && {
      description: [route.description, withCredentials && BODY_CREDENTIALS].filter(Boolean).join("\n\n"),
    }),
    tags: [tagOf(route)],
    security: security(route),
    parameters,
    ...(requestBody !== undefined && { requestBody }),
    responses: responsesOf(route),
  };
}

let cached: Record<string, Record<string, unknown>> | undefined;

/**
 * OpenAPI 3.1, generated from the route table and the contracts: the interface document's paths
 * only (the admin console's file routes are no API), every status each can answer, and the
 * webhooks the service sends.
 */
export function openApiDocument(serverUrl: string) {
  cached ??= buildPaths();
  return {
    openapi: "3.1.0",
    info: {
      title: "ClinSign API",
      version: "1.0.0",
      description:
        "Signatures (area A, HTTPS and `Authorization: Bearer`) and forms (area B, `token` + `orgId`, or `Authorization: Bearer`). " +
        "Area A errors: `{error:{code,message,details}}`; area B errors: `{ok:false,error[,fieldErrors]}`.",
      license: { name: "Proprietary", identifier: "LicenseRef-ClinSign" },
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "Forms (area B)", description: "Form templates, embed sessions, drafts, submissions, webhooks log" },
      { name: "Signatures (area A)", description: "Documents, signature requests, portal design (HTTPS only)" },
      { name: "Verification", description: "Checking a sealed PDF, without credentials" },
      { name: "Webhooks", description: "Events the service POSTs to the organization's webhook URLs" },
    ],
    components: {
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "API token (`cs_…`). Area A; area B too, where the token names its organization.",
        },
        token: {
          type: "apiKey",
          in: "query",
          name: "token",
          description:
            "Area B: the API token as query parameter (GET), with `orgId`. Other methods send `token` and `orgId` in the JSON body (or multipart fields).",
        },
        orgId: {
          type: "apiKey",
          in: "query",
          name: "orgId",
          description: "Area B: the organization's UUID, with `token` (query for GET, body otherwise).",
        },
        sessionId: {
          type: "apiKey",
          in: "query",
          name: "sessionId",
          description:
            "Area B: an embed session (POST /api/embed/sessions) instead of token + orgId; in the body for non-GET.",
        },
        sessionHeader: {
          type: "apiKey",
          in: "header",
          name: "x-session-id",
          description: "Uploads: the embed session as header, checked before the body is read.",
        },
      },
    },
    paths: cached,
    webhooks: webhookSection(),
  };
}

function buildPaths() {
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of documentedRoutes) {
    const op = operation(route);
    // One documented number can cover several paths (A3 and its downloads).
    for (let n = 2; operationIds.has(op.operationId); n++)
      op.operationId = `${route.ref}_${route.method.toLowerCase()}_${n}`;
    operationIds.add(op.operationId);
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = op;
  }
  return paths;
}
