import type { AccessExportManifest, ExportedRecord } from "./access-export";
import type { PatientRecordKind } from "./patient-records";

/** German · English, side by side: the page is for the patient, whichever language they read. */
type Bilingual = readonly [de: string, en: string];

const KIND_LABELS: Record<PatientRecordKind, Bilingual> = {
  embedSessions: ["Formular-Links", "Form links"],
  drafts: ["Entwürfe", "Drafts"],
  submissions: ["Eingereichte Formulare", "Submitted forms"],
  uploads: ["Hochgeladene Dateien", "Uploaded files"],
  formRequests: ["Formularanfragen per SMS", "Form requests by text message"],
  otpChallenges: ["Bestätigungscodes (nur Kennungen)", "Confirmation codes (identifiers only)"],
  signatureRequests: ["Signaturanfragen", "Signature requests"],
  signingCredentials: ["Signatur-Zugänge", "Signing accesses"],
  signatureNotices: ["Erinnerungen und Hinweise", "Reminders and notices"],
  messages: ["SMS und E-Mails", "Text messages and e-mails"],
  webhookDeliveries: ["Übermittlungen an Systeme der Klinik", "Deliveries to the clinic's systems"],
  webhookAttempts: ["Übermittlungsversuche", "Delivery attempts"],
  jobs: ["Aufgaben", "Jobs"],
  auditEntries: ["Protokolleinträge", "Audit log entries"],
};

const TEXT = {
  title: ["Auskunft über Ihre gespeicherten Daten", "Copy of your stored data"],
  intro: [
    "Diese Datei gehört zu einem ZIP-Archiv. Die Dokumente und Dateien liegen in den Ordnern daneben; manifest.json enthält dieselben Angaben maschinenlesbar.",
    "This page belongs to a ZIP archive. The documents and files are in the folders beside it; manifest.json holds the same in machine-readable form.",
  ],
  organization: ["Organisation", "Organization"],
  generatedAt: ["Erstellt am", "Generated at"],
  patient: ["Gesucht nach", "Searched for"],
  summary: ["Übersicht", "Summary"],
  kind: ["Art", "Kind"],
  count: ["Anzahl", "Count"],
  files: ["Dateien", "Files"],
  path: ["Datei", "File"],
  type: ["Typ", "Type"],
  size: ["Größe (Bytes)", "Size (bytes)"],
  records: ["Einträge", "Records"],
  missing: ["Nicht mehr vorhandene Dateien", "Files no longer held"],
  nothing: ["Über diese Person sind keine Daten gespeichert.", "No data is held about this person."],
  created: ["erstellt", "created"],
} satisfies Record<string, Bilingual>;

const SELECTOR_LABELS: Record<string, Bilingual> = {
  patientId: ["Patienten-ID", "Patient ID"],
  rnummer: ["Fallnummer", "Case number"],
  phone: ["Mobilnummer", "Mobile number"],
};

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Every value on the page passes here: stored values are whatever a form or a caller typed. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const both = ([de, en]: Bilingual) =>
  `<span lang="de">${escapeHtml(de)}</span> · <span lang="en">${escapeHtml(en)}</span>`;

/** A ZIP path as a relative link; each segment percent-encoded so no name can leave the attribute. */
const href = (path: string) => path.split("/").map(encodeURIComponent).join("/");

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

function recordHtml(record: ExportedRecord): string {
  const rows = Object.entries(record.data)
    .map(
      ([key, value]) =>
        `<tr><th scope="row">${escapeHtml(key)}</th><td><pre>${escapeHtml(valueText(value))}</pre></td></tr>`,
    )
    .join("");
  const files = record.files.map((p) => `<li><a href="${href(p)}">${escapeHtml(p)}</a></li>`).join("");
  return `<details><summary>${escapeHtml(record.id)}${record.createdAt ? ` · ${both(TEXT.created)} ${escapeHtml(record.createdAt)}` : ""}</summary>
${files ? `<ul>${files}</ul>` : ""}${rows ? `<table>${rows}</table>` : ""}</details>`;
}

/** The human-readable page of an access export: static HTML, no scripts, nothing loaded from elsewhere. */
export function renderExportIndex(manifest: AccessExportManifest): string {
  const kinds = Object.keys(KIND_LABELS) as PatientRecordKind[];
  const present = kinds.filter((kind) => manifest.records.some((r) => r.kind === kind));
  const summary = present
    .map((kind) => `<tr><td>${both(KIND_LABELS[kind])}</td><td class="n">${manifest.counts[kind]}</td></tr>`)
    .join("");
  const files = manifest.files
    .map(
      (f) =>
        `<tr><td><a href="${href(f.path)}">${escapeHtml(f.path)}</a>${f.name ? `<br><small>${escapeHtml(f.name)}</small>` : ""}</td><td>${escapeHtml(f.contentType)}</td><td class="n">${f.size}</td><td><code>${escapeHtml(f.sha256)}</code></td></tr>`,
    )
    .join("");
  const sections = present
    .map((kind) => {
      const items = manifest.records
        .filter((r) => r.kind === kind)
        .map(recordHtml)
        .join("\n");
      return `<section><h3>${both(KIND_LABELS[kind])}</h3>\n${items}</section>`;
    })
    .join("\n");
  const selector = Object.entries(manifest.selector)
    .map(([k, v]) => `${SELECTOR_LABELS[k] ? both(SELECTOR_LABELS[k]) : escapeHtml(k)}: ${escapeHtml(String(v))}`)
    .join("<br>");
  const missing = manifest.missingFiles.length
    ? `<h2>${both(TEXT.missing)}</h2><ul>${manifest.missingFiles
        .map((m) => `<li>${escapeHtml(m.kind)} · ${escapeHtml(m.record.kind)} ${escapeHtml(m.record.id)}</li>`)
        .join("")}</ul>`
    : "";
  const empty = manifest.records.length === 0 ? `<p>${both(TEXT.nothing)}</p>` : "";
  return `<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self'">
<title>${escapeHtml(TEXT.title[0])} · ${escapeHtml(TEXT.title[1])}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#111;background:#fff}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right}pre{margin:0;white-space:pre-wrap;word-break:break-word}code{word-break:break-all;font-size:.75em}
@media (max-width:40rem){body{font-size:14px;padding:.5rem}th,td{padding:.2rem .3rem}}
details{border:1px solid #ccc;border-radius:4px;padding:.25rem .5rem;margin:.25rem 0}summary{cursor:pointer}
a:focus,summary:focus{outline:3px solid #1a56db;outline-offset:2px}
</style>
</head>
<body>
<main>
<h1>${both(TEXT.title)}</h1>
<p>${both(TEXT.intro)}</p>
<dl>
<dt>${both(TEXT.organization)}</dt><dd>${escapeHtml(manifest.organization.name)}</dd>
<dt>${both(TEXT.generatedAt)}</dt><dd>${escapeHtml(manifest.generatedAt)}</dd>
<dt>${both(TEXT.patient)}</dt><dd>${selector}</dd>
</dl>
${empty}
<h2>${both(TEXT.summary)}</h2>
<table><thead><tr><th scope="col">${both(TEXT.kind)}</th><th scope="col">${both(TEXT.count)}</th></tr></thead><tbody>${summary}</tbody></table>
<h2>${both(TEXT.files)}</h2>
<table><thead><tr><th scope="col">${both(TEXT.path)}</th><th scope="col">${both(TEXT.type)}</th><th scope="col">${both(TEXT.size)}</th><th scope="col">SHA-256</th></tr></thead><tbody>${files}</tbody></table>
${missing}
<h2>${both(TEXT.records)}</h2>
${sections}
</main>
</body>
</html>
`;
}
