/**
 * Hostile-input fuzz test (issue 8): generated requests against every REST path of the route table
 * and the public tRPC procedures: wrong types, NUL, lone surrogates, huge numbers, deep nesting,
 * long strings, bad JSON, bad multipart, hostile path segments. The service must answer each with
 * a 4xx (or a success), never a 5xx or a stack trace, and stay healthy.
 *
 * The SMS portal's door (the `portal.*` procedures the web app serves under /f/trpc, and its upload
 * door: /api/embed/uploads with `x-portal-link` and the access cookie) and the events endpoint
 * (REST and `forms.event`) are also fuzzed past their credentials: with a live link, access and
 * identification cookie, and a live embed session, so hostile values reach the checks behind them.
 *
 * Two hostile-file doors get files of their own: `/verify` (anonymous PDFs: many or malformed
 * signatures' ranges, truncated and nested files, from many addresses) and the organization seal
 * upload (`organization.uploadSeal` with an admin's cookie: PKCS#12 files naming huge iteration
 * counts, truncated, deeply nested or not DER at all).
 *
 * The generator is a seeded PRNG: a failure prints its seed; FUZZ_SEED=<n> replays the run, and
 * FUZZ_REQUESTS=<n> changes how many requests it sends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { rateLimits } from "@clinsign/db";
import { updateOrganizationSettings } from "../core/organizations/organizations";
import { makeCertificate, makeP12, withIterationCounts } from "../testing/certificates";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { makePdf } from "../testing/signature-fixtures";
import { activeTemplate, creds as orgCreds, newSession } from "../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../testing/receiver";
import { appRouter } from "../trpc/root";
import { openApiDocument } from "./openapi";
import { documentedRoutes, type ApiRoute } from "./routes";

// The test reads its own knobs; the service itself reads only env.ts.
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1200);
const PARALLEL = 6;

/** The procedures anyone may call without credentials. */
const PUBLIC_PROCEDURES = [
  "auth.login",
  "auth.logout",
  "signing.open",
  "signing.document",
  "signing.sign",
  "signing.signedDocument",
  "signing.decline",
  "smsForm.open",
  "smsForm.verify",
  "smsForm.resendOtp",
  "smsForm.checkOtp",
  "smsForm.template",
  "smsForm.loadDraft",
  "smsForm.saveDraft",
  "smsForm.submit",
  "publicEmbeds.describe",
  "publicEmbeds.start",
];

const documentPaths = openApiDocument("http://127.0.0.1").paths as Record<
  string,
  Record<string, { responses: Record<string, unknown> }>
>;
/** The statuses the OpenAPI document lists for a route's operation. */
const documentedStatuses = (route: ApiRoute) =>
  Object.keys(documentPaths[route.path]![route.method.toLowerCase()]!.responses);
/**
 * Whether a request calls the route's operation at all: every path parameter filled. An empty one
 * (`PUT /documents/`) is another URL, which the document does not describe (405 there is right).
 */
const callsOperation = (route: ApiRoute, path: string) =>
  new RegExp(`^${route.path.replace(/\{\w+\}/g, "[^/?]+")}(\\?|$)`).test(path);

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

const nested = (depth: number, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

const STRINGS = [
  "",
  "a\u0000b",
  "\u0000",
  "\ud800",
  "x\udfffy",
  "💥\ud83d",
  "%00",
  "%ZZ",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "${jndi:ldap://x}",
  "\u202e\u200b\ufeff",
  "null",
  "true",
  "-1",
  "1e309",
  "2024-02-30",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "+49 170 0000000",
  "not-an-email@",
];

function hostileValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(16)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER]);
    case 3:
      return rng.pick(STRINGS);
    case 4:
      // Long strings only at the top: a list of them would be a large body, refused as such.
      return "x".repeat(depth === 0 ? rng.pick([256, 4097, 100_001, 300_000]) : rng.pick([256, 4097]));
    case 5:
      return rng.pick(STRINGS) + "y".repeat(rng.int(2000));
    case 6:
      return nested(rng.pick([10, 65, 200, 2000]), rng.pick(STRINGS));
    case 7: {
      const length = rng.pick([0, 1, 50, 1001]);
      return Array.from({ length }, () => (depth < 2 && length <= 50 ? hostileValue(rng, depth + 1) : rng.int(10)));
    }
    case 8:
      return depth < 2
        ? Object.fromEntries(
            Array.from({ length: rng.int(6) }, () => [rng.pick(STRINGS), hostileValue(rng, depth + 1)]),
          )
        : {};
    case 9:
      return { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } };
    case 10:
      return String(rng.int(1e9));
    case 11:
      return rng.pick(["draft", "active", "archived", "pdf", "metadata", "sms", "email"]);
    case 12:
      return {
        version: hostileValue(rng, depth + 1),
        fields: [
          {
            id: "1",
            type: rng.pick(["text", "file", "x"]),
            key: rng.pick(STRINGS),
            label: "L",
            pattern: rng.pick(["(a+)+b", "(?=a)", "[", "\\1"]),
          },
        ],
      };
    case 13:
      return { page: hostileValue(rng, depth + 1), x: -1, y: 1e308, width: "10", height: null };
    case 14:
      return "https://127.0.0.1:1/" + rng.pick(STRINGS);
    default:
      return undefined;
  }
}

/** Keys the input schema knows, so that hostile values reach the checks behind them. */
function knownKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

interface Credentials {
  org: TestOrg;
  sessionId: string;
  templateIdentifier: string;
  /**
   * The template path parameters name (F4–F6): another one, so a hostile F6 with the real token may
   * delete it without taking the session's template, and the event door, along with it.
   */
  pathTemplateIdentifier: string;
  /** A live SMS-portal request after identification: its link and access cookie. */
  smsForm: { linkToken: string; accessCookie: string };
  /** A live SMS-portal request of a two-factor organization, identified and waiting for its code. */
  otpSmsForm: { linkToken: string; identityCookie: string };
  /** The organization owner's staff cookie (the seal upload door). */
  adminCookie: string;
  /** Files for the hostile-file doors, made once. */
  hostileFiles: { pdfs: Buffer[]; p12s: string[] };
}

function hostileObject(rng: Rng, keys: string[], creds: Credentials | null): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of keys) if (rng.chance(0.7)) body[key] = hostileValue(rng);
  if (rng.chance(0.3)) body[rng.pick(STRINGS) || "extra"] = hostileValue(rng);
  if (creds) {
    const how = rng.int(3);
    if (how === 0) Object.assign(body, { token: creds.org.token, orgId: creds.org.orgId });
    else if (how === 1) body.sessionId = creds.sessionId;
    if (rng.chance(0.5)) body.templateIdentifier = rng.chance(0.5) ? creds.templateIdentifier : hostileValue(rng);
  }
  return body;
}

/** A JSON text that is wrong on purpose, or a valid one with hostile content. */
function hostileJsonText(rng: Rng, body: unknown): string {
  switch (rng.int(10)) {
    case 0:
      return rng.pick([
        "{",
        "[1,",
        '{"a":}',
        "nul",
        '"\\ud800"',
        '{"a":1}}',
        "\u0000",
        '{"a":"\\u0000"}',
        "[]",
        "123",
        '"text"',
        "",
      ]);
    case 1:
      return "[".repeat(rng.pick([100, 10_000])) + "]".repeat(rng.pick([0, 100]));
    case 2:
      return (JSON.stringify(body) ?? "undefined").replace(/"/, "'");
    case 3:
      return '{"a":' + "9".repeat(rng.pick([400, 5000])) + "}";
    default:
      return JSON.stringify(body) ?? "null";
  }
}

const SEGMENTS = [
  "%00",
  "%ZZ",
  "%ED%A0%80",
  "%F0%9F%92",
  "..%2F..",
  "a".repeat(300),
  "00000000-0000-4000-8000-000000000000",
  "x",
  "%20",
  "💥",
  "1e309",
  "-1",
];

/** encodeURIComponent, except that a lone surrogate (which it refuses) becomes its UTF-8-like bytes. */
const encodeSegment = (text: string) =>
  encodeURIComponent(text.replace(/[\ud800-\udfff]/g, "\u0000")).replaceAll("%00", "%ED%A0%80");

function fillPath(rng: Rng, path: string, creds: Credentials): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) =>
    name === "identifier" && rng.chance(0.3)
      ? creds.pathTemplateIdentifier
      : rng.chance(0.8)
        ? rng.pick(SEGMENTS)
        : encodeSegment(String(hostileValue(rng))),
  );
}

function query(rng: Rng, values: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    params.append(key, typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
    if (rng.chance(0.1)) params.append(key, "again");
  }
  const text = params.toString();
  return rng.chance(0.1) ? `${text}&%ZZ=1&a=%E0%A4%A` : text;
}

function multipart(rng: Rng, creds: Credentials | null): { body: string; contentType: string } {
  const boundary = "----fuzz" + rng.int(1e9);
  const part = (name: string, value: string, file?: string) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\ncontent-type: ${rng.pick(["application/pdf", "image/png", "text/x\u0000"])}` : ""}\r\n\r\n${value}\r\n`;
  const parts = [
    creds && rng.chance(0.6) ? part("sessionId", creds.sessionId) : part("token", String(hostileValue(rng))),
    part(
      rng.pick(["befund", "files", "\u0000", ""]),
      "%PDF-1.7 " + "z".repeat(rng.int(5000)),
      rng.pick(["a.pdf", "../../x", "\ud800.pdf", ""]),
    ),
  ];
  switch (rng.int(5)) {
    case 0:
      return { body: parts.join("") + `--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
    case 1:
      return { body: parts.join(""), contentType: `multipart/form-data; boundary=${boundary}` }; // never ends
    case 2:
      return { body: parts.join("") + `--${boundary}--\r\n`, contentType: "multipart/form-data" }; // no boundary
    case 3:
      return { body: parts.join("").replaceAll("\r\n", "\n"), contentType: `multipart/form-data; boundary=other` };
    default:
      return {
        body: "--" + boundary + "\r\ncontent-disposition: form-data\r\n\r\n",
        contentType: `multipart/form-data; boundary=${boundary}`,
      };
  }
}

interface FuzzRequest {
  /** The door a request is aimed past, for the doors whose credentials the fuzz holds. */
  door?: "portal" | "portal-upload" | "events" | "verify" | "seal-upload";
  /** The documented operation a request calls: its answer must be one the OpenAPI document lists. */
  route?: ApiRoute;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function restRequest(rng: Rng, route: ApiRoute, creds: Credentials): FuzzRequest {
  const withCreds = rng.chance(0.7) ? creds : null;
  const headers: Record<string, string> = {};
  if (route.area === "A" && withCreds && rng.chance(0.8)) headers.authorization = `Bearer ${creds.org.token}`;
  else if (rng.chance(0.2))
    headers.authorization = rng.pick([
      "Bearer",
      "Bearer %00",
      "Bearer \u00ff\u00fe",
      "Basic x",
      `Bearer ${"t".repeat(5000)}`,
    ]);
  let path = fillPath(rng, route.path, creds);
  const values = hostileObject(rng, knownKeys(route.input), withCreds);
  if (route.method === "GET") {
    path += `?${query(rng, values)}`;
    return { method: route.method, path, headers };
  }
  if (route.body === "multipart" && rng.chance(0.8)) {
    const { body, contentType } = multipart(rng, withCreds);
    if (rng.chance(0.3) && withCreds) headers["x-session-id"] = creds.sessionId;
    return { method: route.method, path, headers: { ...headers, "content-type": contentType }, body };
  }
  headers["content-type"] = rng.pick([
    "application/json",
    "application/json",
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=latin1",
  ]);
  return { method: route.method, path, headers, body: hostileJsonText(rng, values) };
}

const procedureTypes = Object.fromEntries(
  Object.entries(
    (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures,
  ).map(([path, p]) => [path, p._def.type]),
);

function trpcRequest(rng: Rng, procedure: string, creds: Credentials): FuzzRequest {
  const keys = [
    "token",
    "linkToken",
    "sessionToken",
    "email",
    "password",
    "rnummer",
    "phone",
    "code",
    "values",
    "consent",
    "signature",
    "reason",
    "draftKey",
    "next",
    "event",
    "data",
    "templateIdentifier",
  ];
  const input = rng.chance(0.15)
    ? hostileValue(rng)
    : hostileObject(
        rng,
        keys.filter(() => rng.chance(0.4)),
        null,
      );
  const headers: Record<string, string> = {};
  if (rng.chance(0.2))
    headers.cookie = rng.pick([
      "cs_form_access=%ZZ",
      `cs_session=${"c".repeat(500)}`,
      "cs_form_access=%00\u00ff",
      "cs_form_identified=%ZZ",
      "a=b; =; ;;",
    ]);
  if (rng.chance(0.1) || (procedure === "forms.event" && rng.chance(0.8)))
    headers["x-session-id"] = rng.chance(0.5) ? creds.sessionId : "%00\u00ff";
  if (procedure === "forms.event" && isObject(input) && rng.chance(0.7))
    input.event = rng.pick(["form.opened", "form.closed", "form.submitted"]);
  // The SMS portal's door past its credentials: a live link with its access or identification cookie.
  if (procedure.startsWith("smsForm.") && isObject(input) && rng.chance(0.7)) {
    const otpStep = procedure === "smsForm.checkOtp" || procedure === "smsForm.resendOtp";
    input.linkToken = otpStep ? creds.otpSmsForm.linkToken : creds.smsForm.linkToken;
    headers.cookie = [otpStep ? creds.otpSmsForm.identityCookie : creds.smsForm.accessCookie, headers.cookie]
      .filter(Boolean)
      .join("; ");
    if (procedure === "smsForm.checkOtp" && rng.chance(0.5)) input.code = String(rng.int(1_000_000)).padStart(6, "0");
  }
  const door = procedure.startsWith("smsForm.")
    ? ("portal" as const)
    : procedure === "forms.event"
      ? ("events" as const)
      : undefined;
  if (procedureTypes[procedure] === "query") {
    const raw = rng.chance(0.8) ? (JSON.stringify(input) ?? "") : hostileJsonText(rng, input);
    return { door, method: "GET", path: `/trpc/${procedure}?input=${encodeSegment(raw)}`, headers };
  }
  headers["content-type"] = "application/json";
  return {
    door,
    method: "POST",
    path: `/trpc/${procedure}${rng.chance(0.05) ? "?batch=1" : ""}`,
    headers,
    body: hostileJsonText(rng, input),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The SMS portal's upload door: `x-portal-link` and the access cookie (live or hostile), a hostile multipart body. */
function smsFormUploadRequest(rng: Rng, creds: Credentials): FuzzRequest {
  const { body, contentType } = rng.chance(0.4) ? wellFormedUpload(rng) : multipart(rng, null);
  const headers: Record<string, string> = { "content-type": contentType };
  headers["x-portal-link"] = rng.chance(0.8)
    ? creds.smsForm.linkToken
    : rng.pick(["", "%00", "x".repeat(300), creds.otpSmsForm.linkToken]);
  headers.cookie = rng.chance(0.8)
    ? creds.smsForm.accessCookie
    : rng.pick([
        "cs_form_access=%ZZ",
        "cs_form_access=",
        "cs_form_access=" + "A".repeat(43),
        creds.otpSmsForm.identityCookie,
      ]);
  const path = "/api/embed/uploads" + (rng.chance(0.3) ? `?${query(rng, { fieldKey: hostileValue(rng) })}` : "");
  return { door: "portal-upload", method: "POST", path, headers, body };
}

/** A well-formed multipart upload of a small PDF whose names and fieldKey may still be hostile. */
function wellFormedUpload(rng: Rng): { body: string; contentType: string } {
  const boundary = "----fuzz" + rng.int(1e9);
  const field = rng.chance(0.5)
    ? `--${boundary}\r\ncontent-disposition: form-data; name="fieldKey"\r\n\r\n${rng.pick(["befund", "name", "\u202e", "x".repeat(300)])}\r\n`
    : "";
  const name = rng.chance(0.5)
    ? "befund.pdf"
    : rng.pick(["\u202e.pdf", `${"x".repeat(300)}.pdf`, "../../a.pdf", "a\\b.pdf", "💥.pdf"]);
  const file = `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/pdf\r\n\r\n%PDF-1.7 ${"z".repeat(rng.int(2000))}\r\n`;
  return { body: `${field}${file}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST /api/embed/events with a live session and a valid event, so `data` reaches its checks. */
function eventRequest(rng: Rng, creds: Credentials): FuzzRequest {
  const data = rng.chance(0.5)
    ? Object.fromEntries(
        Array.from({ length: rng.int(5) }, () => [
          rng.pick(STRINGS) || "k",
          rng.pick([...STRINGS, 1e308, null, true, [], {}]),
        ]),
      )
    : hostileValue(rng);
  const body = {
    sessionId: creds.sessionId,
    event: rng.pick(["form.opened", "form.closed"]),
    data,
    ...(rng.chance(0.15) && { templateIdentifier: hostileValue(rng) }),
  };
  const text = rng.chance(0.8) ? JSON.stringify(body) : hostileJsonText(rng, body);
  return {
    door: "events",
    method: "POST",
    path: "/api/embed/events",
    headers: { "content-type": "application/json" },
    body: text,
  };
}

/** A file whose `entries` `/ByteRange`s each cover all of its `size` bytes around one small /Contents. */
function byteRangeFile(entries: number, size: number, range?: string): Buffer {
  const head = "%PDF-1.7\n<3000>\n";
  const entry = `/ByteRange ${range ?? `[0 9 15 ${size - 15}]`}\n`;
  const body = head + entry.repeat(entries);
  return Buffer.concat([Buffer.from(body, "latin1"), Buffer.alloc(Math.max(0, size - body.length), 0x20)]);
}

/** Hostile PDFs for /verify and hostile PKCS#12 files for the seal upload. */
async function makeHostileFiles(): Promise<Credentials["hostileFiles"]> {
  const pdf = await makePdf();
  const pdfs = [
    pdf,
    pdf.subarray(0, pdf.length / 2),
    byteRangeFile(3, 64 * 1024),
    byteRangeFile(2_000, 512 * 1024),
    byteRangeFile(5, 4096, "[0 9 99999999999 99999999999]"),
    byteRangeFile(5, 4096, "[0 0 0 0]"),
    byteRangeFile(1, 4096, "[0 9 15 -5]"),
    Buffer.concat([Buffer.from("%PDF-1.7\n/ByteRange [0 9 4000 96]\n<"), Buffer.alloc(4000, 0x7a), Buffer.from(">")]),
    Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(20_000, 0x30), Buffer.from("\n%%EOF")]),
    Buffer.from("%PDF-"),
  ];
  const ordinary = makeP12("pw", [makeCertificate({ commonName: "Klinik Fuzz Siegel" })]);
  const der = Buffer.from(ordinary, "base64");
  const p12s = [
    ordinary,
    withIterationCounts(ordinary, { mac: 10_000_000 }),
    withIterationCounts(ordinary, { mac: 2 ** 31 }),
    withIterationCounts(ordinary, { keyBag: 2 ** 31 }),
    withIterationCounts(ordinary, { mac: 2 ** 53 }),
    der.subarray(0, der.length - 7).toString("base64"),
    // Nested indefinite-length SEQUENCEs, a length of 4 GB, and no DER at all.
    Buffer.from("3080".repeat(5000), "hex").toString("base64"),
    Buffer.from("3084ffffffff0201", "hex").toString("base64"),
    Buffer.from("%PDF-1.7 not a key store").toString("base64"),
    "not base64 at all \u0000",
  ];
  return { pdfs, p12s };
}

/** POST /verify from many addresses (IPv4 and IPv6), with one of the hostile PDFs. */
function verifyRequest(rng: Rng, creds: Credentials): FuzzRequest {
  const ip = rng.chance(0.5)
    ? `198.18.${rng.int(256)}.${rng.int(256)}`
    : `2001:db8:${rng.int(65536).toString(16)}:${rng.int(65536).toString(16)}::${rng.int(65536).toString(16)}`;
  const file = rng.pick(creds.hostileFiles.pdfs);
  return {
    door: "verify",
    method: "POST",
    path: "/verify",
    headers: {
      "content-type": rng.chance(0.9) ? "application/pdf" : "application/octet-stream",
      "x-forwarded-for": ip,
    },
    body: file.toString("latin1"),
  };
}

/** The organization seal upload with the owner's cookie: hostile PKCS#12 files and passwords. */
function sealUploadRequest(rng: Rng, creds: Credentials): FuzzRequest {
  const headers = { "content-type": "application/json", cookie: creds.adminCookie };
  const path = "/trpc/organization.uploadSeal";
  // A share are the ordinary file with its password, so that the door is passed, not only knocked
  // on, whatever the seed (the hostile ones below succeed about once in twenty).
  if (rng.chance(0.3))
    return {
      door: "seal-upload",
      method: "POST",
      path,
      headers,
      body: JSON.stringify({ p12Base64: creds.hostileFiles.p12s[0], password: "pw" }),
    };
  const input = {
    p12Base64: rng.chance(0.9) ? rng.pick(creds.hostileFiles.p12s) : hostileValue(rng),
    password: rng.chance(0.5) ? "pw" : rng.chance(0.5) ? rng.pick(STRINGS) : hostileValue(rng),
  };
  return {
    door: "seal-upload",
    method: "POST",
    path,
    headers,
    body: rng.chance(0.9) ? JSON.stringify(input) : hostileJsonText(rng, input),
  };
}

/** Anything that looks like a stack trace or an internal path. */
const STACK = /\n\s+at |at [\w.<>]+ \(|node_modules|\/src\/[\w/-]+\.ts|\.js:\d+:\d+/;

let api: TestApi;
let twilio: Receiver;
let creds: Credentials;

/** Starts an SMS-portal request and identifies for it: its link and the cookie the answer set. */
async function identifiedSmsRecipient(
  org: TestOrg,
  templateIdentifier: string,
  rnummer: string,
): Promise<{ linkToken: string; cookie: string }> {
  const phone = "+491701234567";
  const started = await api.request("POST", "/api/portal/request", {
    body: { ...orgCreds(org), templateIdentifier, rnummer, phone },
  });
  if (started.status !== 200) throw new Error(`form request: ${started.status}`);
  const linkToken = /\/f\/([A-Za-z0-9_-]+)/.exec(new URLSearchParams(twilio.requests.at(-1)!.body).get("Body")!)![1]!;
  const verified = await fetch(`${api.baseUrl}/trpc/smsForm.verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ linkToken, rnummer, phone }),
  });
  const cookie = verified.headers.getSetCookie()[0]?.split(";")[0];
  if (!cookie) throw new Error(`smsForm.verify: ${verified.status}`);
  return { linkToken, cookie };
}

beforeAll(async () => {
  twilio = await startReceiver();
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SMfuzz" }) });
  api = await startTestApi(twilioEnv(twilio));
  const org = await api.createOrg("Klinik Fuzz");
  const fields = [
    { id: "1", type: "text", key: "name", label: "Name", pattern: "[A-Za-z ]{1,40}" },
    { id: "2", type: "email", key: "mail", label: "Mail" },
    { id: "3", type: "file", key: "befund", label: "Befund", accept: ".pdf", maxSizeMb: 1 },
  ] as const;
  const template = await activeTemplate(org, [...fields]);
  // The portal's form requires an answer fuzzing will not guess, so its access stays open throughout.
  const smsTemplate = await activeTemplate(org, [
    { ...fields[0], required: true, pattern: "Fuzz-[0-9]{12}" },
    fields[1],
    fields[2],
  ]);
  const smsForm = await identifiedSmsRecipient(org, smsTemplate.identifier, "R-FUZZ");
  const otpOrg = await api.createOrg("Klinik Fuzz OTP");
  await updateOrganizationSettings(otpOrg.ctx, { otpEnabled: true });
  const otpSmsForm = await identifiedSmsRecipient(otpOrg, (await activeTemplate(otpOrg)).identifier, "R-FUZZ-OTP");
  creds = {
    org,
    templateIdentifier: template.identifier,
    pathTemplateIdentifier: (await activeTemplate(org, [...fields])).identifier,
    sessionId: await newSession(api, org, template.identifier, { rnummer: "R-SESSION" }),
    smsForm: { linkToken: smsForm.linkToken, accessCookie: smsForm.cookie },
    otpSmsForm: { linkToken: otpSmsForm.linkToken, identityCookie: otpSmsForm.cookie },
    adminCookie: await logInCookie(api, org.ownerEmail, org.ownerPassword),
    hostileFiles: await makeHostileFiles(),
  };
});
afterAll(async () => {
  await api?.close();
  await twilio?.close();
});

describe("fuzz: hostile requests on every REST path and the public tRPC procedures", () => {
  it(`answers each with 4xx or success, never 5xx or a stack trace (seed ${SEED})`, async () => {
    const rng = prng(SEED);
    expect(creds.smsForm.accessCookie).toMatch(/^cs_form_access=/);
    expect(creds.otpSmsForm.identityCookie).toMatch(/^cs_form_identified=/);
    const targets: (() => FuzzRequest)[] = [
      ...documentedRoutes.map((route) => () => ({ ...restRequest(rng, route, creds), route })),
      ...[...PUBLIC_PROCEDURES, "forms.event"].map((procedure) => () => trpcRequest(rng, procedure, creds)),
      // Weighted like a few paths each: one door stands for many kinds of hostile upload and event.
      ...Array.from({ length: 3 }, () => () => smsFormUploadRequest(rng, creds)),
      ...Array.from({ length: 2 }, () => () => eventRequest(rng, creds)),
      () => verifyRequest(rng, creds),
      ...Array.from({ length: 2 }, () => () => sealUploadRequest(rng, creds)),
    ];
    for (const procedure of [...PUBLIC_PROCEDURES, "forms.event"])
      expect(procedureTypes[procedure], procedure).toBeDefined();
    // Every target first, then at random: each path is hit many times whatever the seed.
    const plan = Array.from({ length: REQUESTS }, (_, i) => (i < targets.length ? targets[i]! : rng.pick(targets))());
    const failures: string[] = [];
    const undocumented = new Set<string>();
    const statuses = new Map<number, number>();
    const doors = new Map<string, Map<number, number>>();
    for (let i = 0; i < plan.length; i += PARALLEL) {
      // Rate limits would soon answer every portal, session and event call with 429: reset them,
      // so hostile values keep reaching the checks behind the limits.
      if (i % (PARALLEL * 20) === 0) await api.services.db.delete(rateLimits);
      await Promise.all(
        plan.slice(i, i + PARALLEL).map(async (req) => {
          const response = await fetch(`${api.baseUrl}${req.path}`, {
            method: req.method,
            headers: req.headers,
            body: req.body,
          }).catch((error: Error) => error);
          const where = `${req.method} ${req.path.slice(0, 120)} ${JSON.stringify(req.body?.slice(0, 120) ?? "")}`;
          if (response instanceof Error) {
            // The server may close an upload it refuses before reading it; any other failure counts.
            if (req.headers["content-type"]?.startsWith("multipart/")) return;
            failures.push(`${where}: ${response.message}`);
            return;
          }
          const text = await response.text().catch(() => "");
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (req.door) {
            const seen = doors.get(req.door) ?? new Map<number, number>();
            seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
            doors.set(req.door, seen);
          }
          if (
            req.route &&
            callsOperation(req.route, req.path) &&
            !documentedStatuses(req.route).includes(String(response.status))
          )
            undocumented.add(`${req.route.method} ${req.route.path}: ${response.status} ${text.slice(0, 160)}`);
          if (response.status >= 500) failures.push(`${where}: ${response.status} ${text.slice(0, 300)}`);
          else if (STACK.test(text)) failures.push(`${where}: stack trace in ${text.slice(0, 300)}`);
        }),
      );
    }
    const health = await api.request("GET", "/healthz");
    const byDoor = Object.fromEntries([...doors].map(([door, seen]) => [door, Object.fromEntries(seen)]));
    const summary = `seed ${SEED} (replay with FUZZ_SEED=${SEED}); ${plan.length} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}; doors ${JSON.stringify(byDoor)}`;
    console.log(`fuzz: ${summary}`);
    expect(failures, summary).toEqual([]);
    expect([...undocumented], summary).toEqual([]);
    expect(health.status, summary).toBe(200);
    expect(plan.length).toBeGreaterThanOrEqual(1000);
    // The credentialed doors were passed, not just knocked on: each answered some calls with success.
    for (const door of ["portal", "portal-upload", "events", "verify", "seal-upload"])
      expect(doors.get(door)?.get(200) ?? 0, `${door}: ${summary}`).toBeGreaterThan(0);
  }, 240_000);
});
