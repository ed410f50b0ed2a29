import { createHash } from "node:crypto";
import type { FormField, TemplateSchema } from "@clinsign/contracts";
import type { submissions } from "@clinsign/db";
import type { OrgContext } from "../context";
import { signedFileUrl } from "../uploads/uploads";
import { linkIds, questionnaireUrl } from "../fhir-mapping/questionnaire-export";
import { answeredLabelsOf } from "../submissions/answers";
import { CLINSIGN, systems, translationElement, type FhirJson } from "../fhir-mapping/resources";

type SubmissionRecord = typeof submissions.$inferSelect;

/** Digests of stored bytes: FHIR's Attachment.hash is SHA-1 (base64); SHA-256 (hex) rides in an extension. */
export function attachmentDigests(bytes: Buffer): { hash: string; extension: FhirJson[] } {
  return digestsAsFhir({
    sha1Base64: createHash("sha1").update(bytes).digest("base64"),
    sha256Hex: createHash("sha256").update(bytes).digest("hex"),
  });
}

/** What a stored file digests to, however it was read. */
export interface FileDigests {
  size: number;
  sha1Base64: string;
  sha256Hex: string;
}

export const digestsAsFhir = (d: Pick<FileDigests, "sha1Base64" | "sha256Hex">) => ({
  hash: d.sha1Base64,
  extension: [{ url: CLINSIGN.sha256, valueString: d.sha256Hex }] as FhirJson[],
});

/**
 * Where a stored file's Attachment points and what it digests to. By default (the FHIR door,
 * webhooks) an API URL and the stored bytes read back; the patient access export passes the file's
 * path inside its ZIP and the digests it took while streaming the file, so no file is read twice.
 */
export interface AttachmentSource {
  url(key: string): string | undefined;
  digests(key: string): Promise<FileDigests | null>;
}

/** Reads the bytes back to digest them (files of a form are at most MAX_UPLOAD_BYTES). */
export async function storedDigests(ctx: OrgContext, key: string): Promise<FileDigests | null> {
  const bytes = await ctx.services.storage.get(key);
  if (!bytes) return null;
  return {
    size: bytes.length,
    sha1Base64: createHash("sha1").update(bytes).digest("base64"),
    sha256Hex: createHash("sha256").update(bytes).digest("hex"),
  };
}

const apiAttachments = (ctx: OrgContext): AttachmentSource => ({
  // A signed URL of the organization's own storage, valid for a limited time.
  url: (key) => signedFileUrl(ctx, key),
  digests: (key) => storedDigests(ctx, key),
});

const optionLabel = (field: FormField, value: unknown) => {
  if (!("options" in field)) return undefined;
  const option = field.options.find((o) => (typeof o === "string" ? o : o.value) === value);
  return option && typeof option !== "string" && option.label !== option.value ? option.label : undefined;
};

/** One stored value as the answers of its item, typed as the Questionnaire's item says. */
async function answersOf(files: AttachmentSource, field: FormField, value: unknown): Promise<FhirJson[]> {
  switch (field.type) {
    case "number":
      return typeof value === "number" ? [{ valueDecimal: value }] : [];
    case "date":
      return typeof value === "string" ? [{ valueDate: value }] : [];
    case "checkbox":
      return typeof value === "boolean" ? [{ valueBoolean: value }] : [];
    case "select":
    case "radio":
    case "multiselect":
      return (Array.isArray(value) ? value : [value])
        .filter((v) => typeof v === "string")
        .map((code: string) => {
          const display = optionLabel(field, code);
          return { valueCoding: { code, ...(display && { display }) } };
        });
    case "file": {
      const stored = Array.isArray(value)
        ? (value as { name: string; path: string; size: number; type: string }[])
        : [];
      const out: FhirJson[] = [];
      for (const file of stored) {
        const digests = await files.digests(file.path);
        const url = files.url(file.path);
        out.push({
          valueAttachment: {
            contentType: file.type,
            ...(url && { url }),
            size: file.size,
            title: file.name,
            ...(digests && digestsAsFhir(digests)),
          },
        });
      }
      return out;
    }
    case "signature": {
      const match = typeof value === "string" ? /^data:(image\/(?:png|jpeg));base64,(.+)$/.exec(value) : null;
      if (!match) return [];
      const bytes = Buffer.from(match[2]!, "base64");
      return [
        {
          valueAttachment: {
            contentType: match[1],
            data: match[2],
            size: bytes.length,
            title: "signature",
            ...attachmentDigests(bytes),
          },
        },
      ];
    }
    case "score": {
      // The server's sum (form-scores.ts); its band rides along, FHIR having no element for it.
      const stored = value as { score?: unknown; band?: unknown } | null | undefined;
      if (typeof stored?.score !== "number") return [];
      const band = typeof stored.band === "string" ? [{ url: CLINSIGN.scoreBand, valueString: stored.band }] : [];
      return [{ valueDecimal: stored.score, ...(band.length && { extension: band }) }];
    }
    default:
      return typeof value === "string" && value !== "" ? [{ valueString: value }] : [];
  }
}

/**
 * The rnummer as the subject's identifier, when the service vouches for it. One the patient's
 * browser gave (an embed session that did not pin it) is not a subject: a receiver that files
 * responses by subject would file it under whichever patient the browser named. It rides in the
 * `patient-reported-identifier` extension instead, so it is kept and plainly marked, and a
 * receiver that ignores extensions sees a response without a subject, never a wrong one.
 */
function subjectOf(apiUrl: string, row: SubmissionRecord): FhirJson {
  if (!row.rnummer) return {};
  const identifier = { system: systems(apiUrl).rnummer, value: row.rnummer };
  if (row.rnummerPatientReported)
    return { extension: [{ url: CLINSIGN.patientReportedIdentifier, valueIdentifier: identifier }] };
  return { subject: { identifier } };
}

/**
 * A submission as a QuestionnaireResponse of the template version it was submitted with
 * (`questionnaire` is `url|version`): one item per answered field, in form order, linkIds as in
 * that Questionnaire; the patient or case number (`rnummer`) as the subject's identifier (see `subjectOf`).
 */
export async function submissionToQuestionnaireResponse(
  ctx: OrgContext,
  row: SubmissionRecord,
  files: AttachmentSource = apiAttachments(ctx),
): Promise<FhirJson> {
  const apiUrl = ctx.services.config.publicApiUrl;
  const schema = row.templateSchema as TemplateSchema;
  const ids = linkIds(schema.fields);
  const item: FhirJson[] = [];
  // Labels in the default language; the one the patient read, where it differs, as a translation.
  const answered = answeredLabelsOf(row);
  for (const field of schema.fields) {
    if (field.key === undefined || field.type === "heading" || field.type === "paragraph") continue;
    if (!(field.key in row.values)) continue;
    const answer = await answersOf(files, field, row.values[field.key]);
    const translated = answered?.get(field.key);
    const _text =
      translated && translated !== field.label ? translationElement([[row.language!, translated]]) : undefined;
    if (answer.length) item.push({ linkId: ids.get(field)!, text: field.label, ...(_text && { _text }), answer });
  }
  return {
    resourceType: "QuestionnaireResponse",
    id: row.id,
    meta: { lastUpdated: row.createdAt.toISOString() },
    identifier: { system: systems(apiUrl).submission, value: row.id },
    questionnaire: `${questionnaireUrl(apiUrl, row.templateIdentifier)}|${schema.version}`,
    status: "completed",
    ...(row.language && { language: row.language }),
    ...subjectOf(apiUrl, row),
    authored: row.createdAt.toISOString(),
    ...(item.length && { item }),
  };
}
