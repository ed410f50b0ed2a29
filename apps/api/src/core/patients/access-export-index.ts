import { PATIENT_ROLE, textDirection, type PatientLanguage } from "@clinsign/contracts";
import type { AccessExportManifest, ExportedFile, ExportedRecord, ExportedRecordKind } from "./access-export-manifest";
import { dateOf, entry, escapeHtml, newestFirst, Page, str, type Row } from "./access-export-page";
import { exportText, type ExportTextKey } from "./access-export-texts";
import { translatedTitle, type ExportTitles } from "./access-export-titles";

/**
 * The export's overview page (index.html): what a patient reads first when they open the ZIP. In
 * one language (`manifest.language`, Arabic right to left), it names the clinic and the date, then
 * says of every record what it is and when it happened, in words, with links to its PDF, images
 * and attachments. Ids and stored values stay in manifest.json ("technical data"); the page shows
 * none of them. Static: no scripts, nothing loaded from elsewhere; every value a customer or a
 * patient typed (titles, names, subjects, message texts) is escaped and isolated (`<bdi>`), so it
 * can neither become markup nor turn a right-to-left line around.
 */

const KNOWN_ROLES = new Set(["patient", "legal_representative", "witness", "interpreter", "physician"]);

function documentEntry(page: Page, titles: ExportTitles, request: ExportedRecord, signer: ExportedRecord | undefined) {
  const r = request.data;
  const s = signer?.data;
  const title =
    titles.document({
      documentId: String(r.documentId),
      pinnedDocumentId: str(r.pinnedDocumentId),
      pinnedVersion: typeof r.pinnedVersion === "number" ? r.pinnedVersion : null,
    }) ?? page.t("untitled");
  const signedAt = s ? s.signedAt : r.signedAt;
  const lines: (string | null)[] = [dateOf(signedAt) ? page.dated("request.signedByYou", signedAt) : null];
  switch (r.status) {
    case "completed":
      if (!dateOf(signedAt)) lines.push(page.dated("request.completedWithoutYou", r.completedAt));
      break;
    case "sealing":
      lines.push(page.t("request.preparing"));
      break;
    case "pending":
    case "opened":
      lines.push(dateOf(signedAt) ? page.t("request.waitingForOthers") : page.dated("request.notSigned", r.createdAt));
      break;
    case "declined": {
      const byPatient = !signer || r.declinedRole === null || r.declinedRole === PATIENT_ROLE;
      lines.push(page.dated(byPatient ? "request.declinedByYou" : "request.declinedByOther", r.declinedAt));
      break;
    }
    case "expired":
      lines.push(page.dated("request.expired", r.expiredAt ?? r.expiresAt));
      break;
  }
  if (dateOf(signedAt)) {
    const method = s ? s.signatureMethod : r.signatureMethod;
    const typedName = str(s ? s.typedName : r.typedName);
    if (method === "drawn") lines.push(page.t("signature.drawn"));
    else if (method === "typed" && typedName) lines.push(page.t("signature.typed", { name: page.value(typedName) }));
  }
  if (s) {
    const role = String(s.role);
    const roleText = KNOWN_ROLES.has(role) ? page.t(`role.${role}` as ExportTextKey) : page.value(role);
    lines.push(page.t("signature.role", { role: roleText }));
  }
  const files = page.filesOf("signatureRequests", request.id);
  const ofKind = (kind: ExportedFile["kind"]) => files.find((f) => f.kind === kind);
  const image = ofKind("signature_image") ?? (signer && page.filesOf("signatureSigners", signer.id)[0]);
  return entry(page.t("document.title", { title: page.value(title) }), lines, [
    page.link(ofKind("signed_pdf"), page.t("link.signedPdf")),
    page.link(image, page.t("link.signatureImage")),
    page.link(ofKind("stamped_pdf"), page.t("link.beforeSealing")),
    page.link(ofKind("metadata_json"), page.t("link.details")),
  ]);
}

function submissionEntry(page: Page, submission: ExportedRecord) {
  const d = submission.data;
  const title =
    translatedTitle(d.templateTranslations, page.language) ??
    (typeof d.language === "string" ? translatedTitle(d.templateTranslations, d.language as PatientLanguage) : null) ??
    str(d.templateTitle) ??
    page.t("untitled");
  const pdf = page.filesOf("submissions", submission.id).find((f) => f.kind === "submission_pdf");
  const attachments = submission.files
    .map((path) => page.file(path))
    .filter((f): f is ExportedFile => f?.kind === "upload")
    .map((f) => page.link(f, page.value(f.name ?? f.path.slice(f.path.lastIndexOf("/") + 1)))!);
  const extra = attachments.length
    ? `<p>${page.t("form.attachments")}</p><ul class="links">${attachments.map((a) => `<li>${a}</li>`).join("")}</ul>`
    : "";
  return entry(
    page.t("form.title", { title: page.value(title) }),
    [page.dated("form.submitted", d.createdAt)],
    [page.link(pdf, page.t("link.answersPdf"))],
    extra,
  );
}

const formTitle = (page: Page, titles: ExportTitles, row: Row) =>
  page.value(titles.form(String(row.templateIdentifier)) ?? exportText(page.language, "untitled"));

const INVITATION_STATES = new Set(["sent", "opened", "verified", "submitted", "locked", "cancelled"]);

function messageEntry(page: Page, message: ExportedRecord) {
  const d = message.data;
  const subject = str(d.subject);
  const body = d.channel === "sms" ? str(d.body) : null;
  return entry(
    page.t(d.channel === "sms" ? "message.sms" : "message.email"),
    [
      d.sentAt ? page.dated("message.sent", d.sentAt) : page.dated("message.notSent", d.createdAt),
      subject ? page.t("message.subject", { subject: page.value(subject) }) : null,
    ],
    [],
    body ? `<blockquote><bdi>${escapeHtml(body)}</bdi></blockquote>` : "",
  );
}

const MORE_KINDS = [
  "signingCredentials",
  "otpChallenges",
  "signatureNotices",
  "webhookDeliveries",
  "webhookAttempts",
  "fhirDeliveries",
  "auditEntries",
] as const satisfies readonly ExportedRecordKind[];

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#1b1f24;font:17px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Naskh Arabic","Noto Sans Arabic",Tahoma,sans-serif}
main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.intro,.entry,.more{background:#fff;border:1px solid #d5dae0;border-radius:12px}
.intro{padding:1.25rem 1.25rem .75rem}
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .75rem}
h2{font-size:1.25rem;line-height:1.3;margin:2rem 0 .75rem}
h3{font-size:1.05rem;line-height:1.35;margin:0 0 .35rem}
p{margin:.25rem 0}
h1,h3,p,dd,li{overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:1rem 0 .5rem}
.facts dt{font-weight:600}
.facts dd{margin:0}
.muted{color:#4b5563;font-size:.92em}
nav ul{list-style:none;margin:.25rem 0 0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem}
.entries{list-style:none;margin:0;padding:0;display:grid;gap:.75rem}
.entry{padding:1rem 1.25rem}
.links{list-style:none;margin:.65rem 0 .15rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
.links a{display:inline-block;padding:.3rem .8rem;border:1px solid #1d4ed8;border-radius:999px;text-decoration:none;font-weight:500}
.links a:hover{background:#eff6ff}
a{color:#1d4ed8}
a:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
blockquote{margin:.5rem 0 0;padding:.5rem .75rem;border-inline-start:3px solid #c3cad3;background:#f6f7f9;white-space:pre-wrap}
.more{padding:1rem 1.25rem}
.more ul{margin:.5rem 0 0;padding-inline-start:1.25rem}
.more ul.links{padding:0}
nav{margin-top:.75rem;padding-top:.6rem;border-top:1px solid #e5e7eb}
nav p{margin:0}
@media (max-width:30rem){body{font-size:16px}main{padding:1rem .75rem 2rem}h1{font-size:1.4rem}.intro,.entry,.more{padding:.9rem 1rem}.facts{grid-template-columns:1fr;gap:0}.facts dd{margin-bottom:.5rem}}
@media print{body{background:#fff}.intro,.entry,.more{break-inside:avoid;border-color:#999}.links a{border:0;padding:0}}
`;

/** One section of the page: its anchor, its heading, its HTML. */
interface Section {
  id: string;
  heading: ExportTextKey;
  body: string;
}

/** A section listing `items`, or none when there are no items. */
const entriesSection = (id: string, heading: ExportTextKey, items: string[]): Section[] =>
  items.length ? [{ id, heading, body: `<ul class="entries">${items.join("\n")}</ul>` }] : [];

/** The human-readable page of an access export: static HTML, no scripts, nothing loaded from elsewhere. */
export function renderExportIndex(
  manifest: AccessExportManifest,
  options: { titles: ExportTitles; timeZone: string },
): string {
  const page = new Page(manifest.language, options.timeZone, manifest.files);
  const sections = [
    ...recordSections(page, options.titles, (kind) => manifest.records.filter((r) => r.kind === kind)),
    ...moreSection(page, manifest),
    technicalSection(page, manifest),
  ];
  return pageHtml(page, manifest, sections);
}

/** The patient's records in words, newest first: documents, forms, drafts, invitations, messages, loose uploads. */
function recordSections(
  page: Page,
  titles: ExportTitles,
  records: (kind: ExportedRecordKind) => ExportedRecord[],
): Section[] {
  const signers = records("signatureSigners");
  const requests = records("signatureRequests").sort(newestFirst((r) => r.data.createdAt));
  const submissions = records("submissions").sort(newestFirst((r) => r.data.createdAt));
  const drafts = records("drafts").sort(newestFirst((r) => r.data.updatedAt));
  const messages = records("messages").sort(newestFirst((r) => r.data.createdAt));
  // Uploads a submission names are listed with it; the others (uploaded, never sent) here.
  const attached = new Set(submissions.flatMap((s) => s.files));
  const loose = records("uploads")
    .filter((u) => !u.files.some((path) => attached.has(path)))
    .sort(newestFirst((r) => r.data.createdAt));
  return [
    ...entriesSection(
      "documents",
      "section.documents",
      requests.map((r) =>
        documentEntry(
          page,
          titles,
          r,
          signers.find((s) => s.data.signatureRequestId === r.id),
        ),
      ),
    ),
    ...entriesSection(
      "forms",
      "section.forms",
      submissions.map((s) => submissionEntry(page, s)),
    ),
    ...entriesSection(
      "drafts",
      "section.drafts",
      drafts.map((d) =>
        entry(page.t("form.title", { title: formTitle(page, titles, d.data) }), [
          page.dated("draft.saved", d.data.updatedAt),
        ]),
      ),
    ),
    ...entriesSection("invitations", "section.invitations", invitationEntries(page, titles, records)),
    ...entriesSection(
      "messages",
      "section.messages",
      messages.map((m) => messageEntry(page, m)),
    ),
    ...entriesSection(
      "uploads",
      "section.uploads",
      loose.map((u) =>
        entry(
          page.value(str(u.data.name) ?? exportText(page.language, "untitled")),
          [page.dated("upload.uploaded", u.data.createdAt)],
          [page.link(page.filesOf("uploads", u.id)[0], page.value(str(u.data.name) ?? ""))],
        ),
      ),
    ),
  ];
}

/** The SMS form requests, then the embed links, each newest first. */
function invitationEntries(
  page: Page,
  titles: ExportTitles,
  records: (kind: ExportedRecordKind) => ExportedRecord[],
): string[] {
  return [
    ...records("formRequests")
      .sort(newestFirst((r) => r.data.createdAt))
      .map((r) =>
        entry(page.t("invitation.sms", { title: formTitle(page, titles, r.data) }), [
          page.dated("invitation.sent", r.data.createdAt),
          INVITATION_STATES.has(String(r.data.status))
            ? page.t(`invitation.status.${String(r.data.status)}` as ExportTextKey)
            : null,
        ]),
      ),
    ...records("embedSessions")
      .sort(newestFirst((r) => r.data.createdAt))
      .map((r) =>
        entry(page.t("invitation.link", { title: formTitle(page, titles, r.data) }), [
          page.dated("invitation.created", r.data.createdAt),
        ]),
      ),
  ];
}

/** How many records of the kinds the page does not describe one by one (when there are any). */
function moreSection(page: Page, manifest: AccessExportManifest): Section[] {
  const more = MORE_KINDS.filter((kind) => manifest.counts[kind] > 0);
  if (!more.length) return [];
  return [
    {
      id: "more",
      heading: "section.more",
      body: `<div class="more"><p>${page.t("more.intro")}</p><ul>${more
        .map((kind) => `<li>${page.t(`more.${kind}`, { count: String(manifest.counts[kind]) })}</li>`)
        .join("")}</ul></div>`,
    },
  ];
}

/** The link to manifest.json, and how many files storage no longer held. */
function technicalSection(page: Page, manifest: AccessExportManifest): Section {
  // manifest.json is written after this page, so it is not among the files listed yet.
  return {
    id: "technical",
    heading: "section.technical",
    body: `<div class="more"><p>${page.t("technical.intro")}</p><ul class="links"><li><a href="manifest.json">${page.t("technical.link")}</a></li></ul>${
      manifest.missingFiles.length
        ? `<p class="muted">${page.t("missing", { count: String(manifest.missingFiles.length) })}</p>`
        : ""
    }</div>`,
  };
}

/** The whole document: head, the introduction with the facts and contents, then the sections. */
function pageHtml(page: Page, manifest: AccessExportManifest, sections: Section[]): string {
  const { language } = page;
  const clinic = page.value(manifest.organization.name);
  const selector = (["patientId", "rnummer", "phone"] as const)
    .filter((k) => manifest.selector[k])
    .map((k) => `${page.t(`selector.${k}`)}: ${page.value(String(manifest.selector[k]))}`)
    .join("<br>");
  const generatedAt = new Date(manifest.generatedAt);
  const nav = sections.map((s) => `<li><a href="#${s.id}">${page.t(s.heading)}</a></li>`).join("");
  const title = exportText(language, "pageTitle").replace("{clinic}", manifest.organization.name);
  return `<!doctype html>
<html lang="${language}" dir="${textDirection(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self'">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header class="intro">
<h1>${page.t("pageTitle", { clinic })}</h1>
<p>${manifest.records.length ? page.t("intro", { clinic }) : page.t("nothing", { clinic })}</p>
<dl class="facts">
<dt>${page.t("clinicLabel")}</dt><dd>${clinic}</dd>
<dt>${page.t("createdLabel")}</dt><dd>${page.date(generatedAt)}</dd>
<dt>${page.t("foundByLabel")}</dt><dd>${selector}</dd>
</dl>
<p class="muted">${page.t("timeZone", { zone: page.value(page.timeZone) })}</p>
<nav aria-labelledby="contents"><p class="muted" id="contents">${page.t("contents")}</p><ul>${nav}</ul></nav>
</header>
${sections.map((s) => `<section aria-labelledby="${s.id}"><h2 id="${s.id}">${page.t(s.heading)}</h2>\n${s.body}</section>`).join("\n")}
</main>
</body>
</html>
`;
}
