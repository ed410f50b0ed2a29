import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi";
import { documentedRoutes, routes } from "./routes";

/** Every endpoint of the interface document (section 4), plus the ones DESIGN.md adds. */
const documented = [
  "A1 POST /signature-requests",
  "A2 GET /signature-requests",
  "A3 GET /signature-requests/completed",
  "A4 POST /signature-requests/verify-session",
  "A5 POST /design",
  "A5 PUT /design",
  "A6 POST /documents",
  "A7 PUT /assignments/{id}",
  "A8 PUT /documents/{id}",
  "A9 DELETE /documents/{id}",
  "A10 PATCH /documents/{id}/availability",
  "F1 POST /api/portal/request",
  "F2 POST /api/embed/templates",
  "F3 GET /api/embed/template",
  "F4 GET /api/embed/templates",
  "F5 PATCH /api/embed/templates/{identifier}",
  "F6 DELETE /api/embed/templates/{identifier}",
  "F7 POST /api/embed/drafts",
  "F8 GET /api/embed/drafts",
  "F9 DELETE /api/embed/drafts",
  "F10 POST /api/embed/submit",
  "F11 POST /api/embed/webhook-event",
  "F12 GET /api/embed/webhook-events",
  "F13 GET /api/embed/audit-logs",
  "B-sessions POST /api/embed/sessions",
  "B-uploads POST /api/embed/uploads",
  "B-events POST /api/embed/events",
  // A3's signed_pdf_url and metadata_json_url (DESIGN.md: API URLs behind the same bearer token).
  "A3 GET /signature-requests/{id}/signed.pdf",
  "A3 GET /signature-requests/{id}/metadata.json",
  // Issue 15: anyone checks a sealed PDF (docs/signatures.md, "Verifying a sealed PDF").
  "verify POST /verify",
  // Issue 17: the patient access export (docs/operations.md, "Patient access export").
  "patients-export POST /patients/export",
  "erase POST /patients/erase",
];

/** Endpoints of later issues, by name. Remove a name when its endpoint lands. */
const pending = new Set<string>([]);

const key = (line: string) => line.split(" ").slice(1).join(" ");

describe("the REST route table", () => {
  it("has every documented endpoint that is not pending, with its reference", () => {
    const table = new Map(documentedRoutes.map((r) => [`${r.method} ${r.path}`, r.ref]));
    for (const line of documented) {
      const ref = line.split(" ")[0]!;
      if (pending.has(ref)) continue;
      expect(table.get(key(line)), line).toBe(ref);
    }
  });

  it("has nothing that is not documented, besides the console's file routes, the signing page's images and the mounted doors", () => {
    const known = new Set(documented.map(key));
    for (const r of documentedRoutes) expect(known.has(`${r.method} ${r.path}`), `${r.method} ${r.path}`).toBe(true);
    const others = routes.filter((r) => !documentedRoutes.some((documentedRoute) => documentedRoute === r));
    for (const r of others) {
      if (r.kind === "console")
        expect(r.path, `${r.method} ${r.path}`).toMatch(/^\/(staff|branding\/logos|signing-pages)\//);
      else
        expect(`${r.kind} ${r.path}`).toMatch(
          /^(fhir \/fhir\/r4|redirect \/sso\/(start|callback)|signedFile \/api\/embed\/files)$/,
        );
    }
    expect(others.filter((r) => r.kind !== "console")).toHaveLength(4);
  });

  it("lists the same endpoints as the interface document's tables", () => {
    // The document sits in shared/ beside the repository (as in CI); the hard-coded list above must match it.
    const doc = join(__dirname, "../../../../../shared/seed/000_04f9d020259f2a1a.txt");
    if (!existsSync(doc)) return;
    const text = readFileSync(doc, "utf8");
    const fromTable = [...text.matchAll(/^\| (A\d+) \| ([A-Z]+) (\/[^ |]+)/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const fromHeadings = [...text.matchAll(/^\*\*(F\d+) ([A-Z]+) (\/[^*]+)\*\*/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]!.replace("<identifier>", "{identifier}")}`,
    );
    const expected = [...fromTable, ...fromHeadings].filter((line) => !line.startsWith("A5 "));
    expect(expected.length).toBeGreaterThanOrEqual(22);
    for (const line of expected) expect(documented, line).toContain(line);
  });
});

describe("the OpenAPI document", () => {
  it("documents the interface document's paths only, none of the console's file routes", () => {
    const doc = openApiDocument("https://api.test") as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(documentedRoutes.map((r) => `${r.method} ${r.path}`).sort());
    expect(operations.some((op) => op.includes("/staff/") || op.includes("/branding/logos/"))).toBe(false);
  });

  it("says on both /design operations how an institution's design relates to the organization default", () => {
    const doc = openApiDocument("https://api.test") as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    for (const method of ["post", "put"]) {
      const description = doc.paths["/design"]![method]!.description ?? "";
      expect(description, method).toContain("default branding");
      expect(description, method).toContain("/branding/logos/");
    }
  });
});
