import { openApiDocument } from "./openapi";

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

type Operation = {
  summary: string;
  tags: string[];
  parameters: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};

/** The schema of the first media type, with its name: JSON for most, multipart for uploads. */
const firstSchema = (content: Record<string, { schema: unknown }>) => {
  const [type, body] = Object.entries(content)[0] ?? [];
  return type ? `<p><code>${escapeHtml(type)}</code></p>${json(body!.schema)}` : "";
};

const json = (value: unknown) => `<pre><code>${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;

/** A readable reference of every REST endpoint, rendered from the OpenAPI document; no scripts, works offline. */
export function renderDocsPage(serverUrl: string): string {
  const doc = openApiDocument(serverUrl);
  const sections = Object.entries(doc.paths as Record<string, Record<string, Operation>>)
    .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })))
    .map(({ path, method, op }) => {
      const params = op.parameters.length
        ? `<table><thead><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr></thead><tbody>${op.parameters
            .map(
              (p) =>
                `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? "yes" : "no"}</td><td>${json(p.schema)}</td></tr>`,
            )
            .join("")}</tbody></table>`
        : "";
      const body = op.requestBody ? `<h4>Request body</h4>${firstSchema(op.requestBody.content)}` : "";
      const responses = Object.entries(op.responses)
        .map(
          ([status, r]) =>
            `<details><summary><b>${status}</b> ${escapeHtml(r.description)}</summary>${r.content ? firstSchema(r.content) : ""}</details>`,
        )
        .join("");
      return `<section id="${escapeHtml(op.summary.split(":")[0]!)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3><p>${escapeHtml(op.summary)} <small>(${escapeHtml(op.tags[0] ?? "")})</small></p>${params}${body}<h4>Responses</h4>${responses}</section>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ClinSign API reference</title><style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a2233;background:#f6f7fb}
main{max-width:960px;margin:0 auto;padding:24px}
section{background:#fff;border:1px solid #dde2ee;border-radius:10px;padding:16px 20px;margin:16px 0}
h1{margin:0 0 4px} code{font-family:ui-monospace,Menlo,Consolas,monospace}
pre{background:#f1f3f8;padding:10px;border-radius:6px;overflow:auto;font-size:13px;max-height:360px}
table{border-collapse:collapse;width:100%} td,th{border-top:1px solid #e6e9f2;padding:6px;text-align:left;vertical-align:top}
.m{display:inline-block;min-width:64px;text-align:center;border-radius:4px;color:#fff;font-size:13px;padding:2px 6px}
.get{background:#1f6feb}.post{background:#1a7f37}.put{background:#9a6700}.patch{background:#8250df}.delete{background:#cf222e}
</style></head><body><main><h1>ClinSign API reference</h1>
<p>${escapeHtml(doc.info.description)}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
${sections}</main></body></html>`;
}
