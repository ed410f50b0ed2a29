import { z } from "zod";
import { areaAErrorBody, areaBErrorBody } from "@clinsign/contracts";
import { documentedRoutes, type ApiRoute } from "./routes";

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  [key: string]: unknown;
};

const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema =>
  z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;

const credentialProperties: Record<string, JsonSchema> = {
  token: { type: "string", description: "API token of the organization" },
  orgId: { type: "string", format: "uuid", description: "organization UUID" },
};

const sessionProperty: Record<string, JsonSchema> = {
  sessionId: { type: "string", description: "embed session (POST /api/embed/sessions); replaces token and orgId" },
};

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

function operation(route: ApiRoute) {
  const input = toSchema(route.input, "input");
  const inPath = new Set(pathParams(route.path));
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([name]) => !inPath.has(name)));
  const required = (input.required ?? []).filter((name) => !inPath.has(name));
  const withCredentials = route.auth !== "bearer" && route.auth !== "public";
  const withSession = route.auth === "orgTokenOrSession";
  const credentials = withSession ? { ...credentialProperties, ...sessionProperty } : credentialProperties;
  const credentialsRequired = withSession ? [] : ["token", "orgId"];
  const parameters: unknown[] = [...inPath].map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  let requestBody: unknown;
  if (route.body === "pdf") {
    const file = { type: "string", format: "binary" };
    requestBody = {
      required: true,
      content: {
        "application/pdf": { schema: file },
        "multipart/form-data": { schema: { type: "object", properties: { file }, required: ["file"] } },
      },
    };
  } else if (route.method === "GET") {
    const query = withCredentials ? { ...credentials, ...properties } : properties;
    const requiredQuery = withCredentials ? [...credentialsRequired, ...required] : required;
    for (const [name, schema] of Object.entries(query)) {
      parameters.push({ name, in: "query", required: requiredQuery.includes(name), schema });
    }
  } else {
    const body = {
      type: "object",
      properties: withCredentials ? { ...credentials, ...properties } : properties,
      required: withCredentials ? [...credentialsRequired, ...required] : required,
    };
    const media = route.body === "multipart" ? "multipart/form-data" : "application/json";
    if (route.body === "multipart")
      body.properties = { ...body.properties, files: { type: "array", items: { type: "string", format: "binary" } } };
    requestBody = { required: true, content: { [media]: { schema: body } } };
  }
  const errorSchema = route.area === "A" ? toSchema(areaAErrorBody, "output") : toSchema(areaBErrorBody, "output");
  const errorResponse = (description: string) => ({
    description,
    content: { "application/json": { schema: errorSchema } },
  });
  return {
    operationId: `${route.ref}_${route.method.toLowerCase()}`,
    summary: `${route.ref}: ${route.summary}`,
    ...(route.description && { description: route.description }),
    tags: [route.auth === "public" ? "Verification" : route.area === "A" ? "Signatures (area A)" : "Forms (area B)"],
    ...(route.auth === "bearer" && { security: [{ bearer: [] }] }),
    parameters,
    ...(requestBody !== undefined && { requestBody }),
    responses: {
      [String(route.status)]: {
        description: "success",
        content: {
          [route.produces ?? "application/json"]: {
            schema: route.produces ? { type: "string", format: "binary" } : toSchema(route.output, "output"),
          },
        },
      },
      "400": errorResponse("invalid input"),
      "401": errorResponse("missing or invalid credentials"),
      "404": errorResponse("not found, or another organization's"),
      ...(route.area === "A" && { "403": errorResponse("plain HTTP (`https_required`) or forbidden") }),
      ...(route.area === "A" && {
        "409": errorResponse("conflict; details.reason says why (A9 answers {deleted:false, reason} instead)"),
      }),
      ...(route.body === "pdf" && {
        "413": errorResponse("the file is larger than the cap"),
        "415": errorResponse("neither application/pdf nor multipart/form-data"),
      }),
      "429": errorResponse("rate limited; see Retry-After"),
      "500": errorResponse("internal error (body carries the request id)"),
    },
  };
}

let cached: unknown;

/**
 * OpenAPI 3.1, generated from the route table and the contracts: the interface document's paths
 * only (the admin console's file routes are no API).
 */
export function openApiDocument(serverUrl: string) {
  cached ??= buildPaths();
  return {
    openapi: "3.1.0",
    info: {
      title: "ClinSign API",
      version: "1.0.0",
      description:
        "Signatures (area A, HTTPS and `Authorization: Bearer`) and forms (area B, `token` + `orgId`). " +
        "Area A errors: `{error:{code,message,details}}`; area B errors: `{ok:false,error[,fieldErrors]}`.",
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    paths: cached,
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
