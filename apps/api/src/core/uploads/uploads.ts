import { createHmac } from "node:crypto";
import type { FormField, TemplateSchema, UploadedFile } from "@clinsign/contracts";
import { eq, formUploads, sum } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import type { SecretBox } from "../crypto";
import { AppError } from "../errors";
import { resolveFormTemplate } from "../forms/form-template";
import type { StoredFile } from "../files/storage";
import { acceptsType } from "../submissions/validate";
import { countPublicUpload, publicUploadCaps } from "./public-upload-caps";

/** Hard cap per file, whatever a field allows. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_FILES_PER_UPLOAD = 10;
/** Cap of one upload request, all parts together. */
export const MAX_UPLOAD_REQUEST_BYTES = 100 * 1024 * 1024;
const URL_LIFETIME_SECONDS = 60 * 60;
const STORAGE_PREFIX = "form-uploads";
/** Enough leading bytes to tell PDF, PNG and JPEG apart. */
const SNIFF_BYTES = 16;

/** One file part of an upload, as it arrives: its bytes are streamed, never held whole. */
export interface IncomingFilePart {
  name: string;
  type: string;
  stream: AsyncIterable<Buffer> & { destroy(error?: Error): void };
}

/** The media type the bytes prove, for the types whose signatures are checked. */
export function sniffType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 5).toString("latin1") === "%PDF-") return "application/pdf";
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return "image/jpeg";
  return null;
}
const SNIFFED = new Set(["application/pdf", "image/png", "image/jpeg", "image/jpg"]);

function fileField(schema: TemplateSchema, fieldKey: string | undefined): Extract<FormField, { type: "file" }> {
  const files = schema.fields.filter((f): f is Extract<FormField, { type: "file" }> => f.type === "file");
  if (fieldKey === undefined) {
    if (files.length === 1) return files[0]!;
    throw new AppError(
      "invalid_request",
      files.length === 0 ? "this form has no file field" : "fieldKey: is required (the form has several file fields)",
      {
        field: "fieldKey",
      },
    );
  }
  const field = files.find((f) => f.key === fieldKey);
  if (!field)
    throw new AppError("invalid_request", `fieldKey: ${fieldKey} is not a file field of this form`, {
      field: "fieldKey",
    });
  return field;
}

/** The signature of a file link (`signedFileUrl`), checked by core/public/file-links.ts. */
export function fileLinkSignature(secrets: SecretBox, path: string, exp: number): string {
  return createHmac("sha256", secrets.deriveKey("file-urls")).update(`${path}\n${exp}`).digest("base64url");
}

/** A URL that serves the private file until it expires; `path` is `<orgId>/<storage key>`. */
export function signedFileUrl(
  { services, scope }: OrgContext,
  storageKey: string,
  lifetimeSeconds = URL_LIFETIME_SECONDS,
): string {
  const path = `${scope.organizationId}/${storageKey}`;
  const exp = Math.floor(Date.now() / 1000) + lifetimeSeconds;
  return `${services.config.publicApiUrl}/api/embed/files/${path}?exp=${exp}&sig=${fileLinkSignature(services.secrets, path, exp)}`;
}

/** A file name safe to store and show: no path separators or control characters, at most 255 characters. */
const safeName = (name: string) =>
  [...name]
    .map((c) => (c === "/" || c === "\\" || c.charCodeAt(0) < 0x20 ? "_" : c))
    .join("")
    .slice(0, 255) || "file";

/**
 * The part's bytes for storage, counted as they pass: 413 at the first byte over `limit`, so an
 * oversized part is refused while it arrives, not after it was buffered. Keeps the leading bytes
 * for the type check.
 */
async function* limited(
  part: IncomingFilePart,
  name: string,
  limit: PartLimit,
  field: string,
  head: { bytes: Buffer },
): AsyncGenerator<Buffer> {
  let size = 0;
  const chunks = part.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch (error) {
      // The parser ends a part whose body stops mid-file with its own error: the client's fault.
      if (error instanceof AppError) throw error;
      throw new AppError("invalid_request", `${name}: the multipart body ended in the middle of the file`, { field });
    }
    if (next.done) break;
    const chunk = next.value;
    size += chunk.length;
    if (size > limit.bytes) throw limit.tooLarge(name, field);
    if (head.bytes.length < SNIFF_BYTES)
      head.bytes = Buffer.concat([head.bytes, chunk.subarray(0, SNIFF_BYTES - head.bytes.length)]);
    yield chunk;
  }
}

/** How many bytes one part may have, and the 413 (or a cap's 429) for one more. */
interface PartLimit {
  bytes: number;
  tooLarge(name: string, field: string): AppError;
}

/** The tightest of the field's limit and the caps' remainders. */
const partLimit = (field: PartLimit, budgets: PartLimit[]): PartLimit =>
  budgets.reduce((tightest, budget) => (budget.bytes < tightest.bytes ? budget : tightest), field);

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

/** Uploads of one browser credential together may not pass `cap` bytes (UPLOAD_MAX_MB_PER_FORM). */
const totalTooLarge = (cap: number) => (_name: string, field: string) =>
  new AppError("payload_too_large", `the files of this form may total at most ${mb(cap)} MB`, {
    field,
    reason: "upload_total_exceeded",
  });

/**
 * Whose uploads are capped together: the browser credentials (an embed session, an SMS recipient's
 * access), never an organization credential (API token, staff), which speaks for the clinic.
 */
export function uploaderKeyOf(ctx: OrgContext): string | null {
  if (!ctx.formGrant) return null;
  // The prefixes stored before the actor types were renamed, so a credential's earlier uploads still count.
  if (ctx.actor.type === "embed_session") return `session:${ctx.actor.id}`;
  if (ctx.actor.type === "sms_recipient") return `portal:${ctx.actor.id}`;
  return null;
}

async function uploadedBytes(ctx: OrgContext, uploaderKey: string): Promise<number> {
  const [row] = await ctx.scope
    .query({ total: sum(formUploads.size) })
    .from(formUploads)
    .where(eq(formUploads.uploaderKey, uploaderKey));
  return Number(row?.total ?? 0);
}

/** Streams one part into storage, then checks it: not empty, and its type as `accept` and its bytes say. */
async function storePart(
  ctx: OrgContext,
  field: Extract<FormField, { type: "file" }>,
  limit: PartLimit,
  part: IncomingFilePart,
): Promise<StoredUpload> {
  const name = safeName(part.name);
  const head = { bytes: Buffer.alloc(0) };
  const stored = await ctx.services.storage.putStream(STORAGE_PREFIX, limited(part, name, limit, field.key, head));
  try {
    if (stored.size === 0) throw new AppError("invalid_request", `${name} is empty`, { field: field.key });
    const declared = part.type.toLowerCase().split(";")[0]!.trim() || "application/octet-stream";
    const sniffed = sniffType(head.bytes);
    if (SNIFFED.has(declared) && sniffed !== (declared === "image/jpg" ? "image/jpeg" : declared)) {
      throw new AppError("invalid_request", `${name} is not a valid ${declared} file`, { field: field.key });
    }
    const type = sniffed ?? declared;
    if (!acceptsType(field.accept, type, name)) {
      throw new AppError("invalid_request", `${name}: type ${type} is not accepted (${field.accept})`, {
        field: field.key,
      });
    }
    return { ...stored, name, type };
  } catch (error) {
    await ctx.services.storage.delete(stored.key).catch(() => {});
    throw error;
  }
}

type StoredUpload = StoredFile & { name: string; type: string };

/**
 * Stores files for one file field of an active template: size against the field's maxSizeMb
 * (25 MB at most) while each part streams in, type against its `accept`, and for PDF/PNG/JPEG
 * the bytes must really be one. A browser credential's uploads together are held to
 * UPLOAD_MAX_MB_PER_FORM: the part that would pass it is 413 while it arrives, and the total is
 * checked again, serialized per credential, when the rows are written (parallel uploads cannot
 * each spend the same remainder). The template and field are resolved before the first file byte
 * is read; on any failure the files already stored are removed again. A public embed's visitor is
 * held to hourly caps per embed and address and per organization besides (`public-upload-caps.ts`,
 * 429 naming the cap), counted the same way.
 */
export async function uploadFiles(
  ctx: OrgContext,
  input: { templateIdentifier?: string; fieldKey?: string; files: AsyncIterable<IncomingFilePart> },
): Promise<UploadedFile[]> {
  const template = await resolveFormTemplate(ctx, input.templateIdentifier);
  const field = fileField(template.schema as TemplateSchema, input.fieldKey);
  const fieldLimit = Math.min(MAX_UPLOAD_BYTES, Math.floor((field.maxSizeMb ?? 25) * 1024 * 1024));
  const uploaderKey = uploaderKeyOf(ctx);
  const cap = ctx.services.config.uploads.maxBytesPerForm;
  const hourlyCaps = await publicUploadCaps(ctx);
  // What each cap has left; every stored part spends from all of them.
  const budgets: PartLimit[] = [
    ...(uploaderKey === null
      ? []
      : [{ bytes: cap - (await uploadedBytes(ctx, uploaderKey)), tooLarge: totalTooLarge(cap) }]),
    ...hourlyCaps.map((hourly) => ({ bytes: hourly.leftBytes, tooLarge: () => hourly.refusal() })),
  ];
  const spent = budgets.find((budget) => budget.bytes <= 0);
  if (spent) throw spent.tooLarge("", field.key);
  const fieldPartLimit: PartLimit = {
    bytes: fieldLimit,
    tooLarge: (name, key) =>
      new AppError("payload_too_large", `${name} is larger than ${mb(fieldLimit)} MB`, { field: key }),
  };
  const stored: StoredUpload[] = [];
  try {
    for await (const part of input.files) {
      if (stored.length === MAX_FILES_PER_UPLOAD)
        throw new AppError("invalid_request", `files: at most ${MAX_FILES_PER_UPLOAD} files per upload`, {
          field: "files",
        });
      const file = await storePart(ctx, field, partLimit(fieldPartLimit, budgets), part);
      stored.push(file);
      for (const budget of budgets) budget.bytes -= file.size;
    }
    if (stored.length === 0) throw new AppError("invalid_request", "files: send at least one file", { field: "files" });
    const storedBytes = stored.reduce((n, f) => n + f.size, 0);
    return await inTransaction(ctx, async (tx) => {
      if (uploaderKey !== null) {
        // One credential's uploads are counted one transaction after another.
        await tx.scope.lock(`form-uploads:${uploaderKey}`);
        const total = (await uploadedBytes(tx, uploaderKey)) + storedBytes;
        if (total > cap) throw totalTooLarge(cap)("", field.key);
      }
      await countPublicUpload(tx, hourlyCaps, storedBytes);
      for (const file of stored) {
        await tx.scope.insert(formUploads, {
          templateIdentifier: template.identifier,
          fieldKey: field.key ?? null,
          storageKey: file.key,
          name: file.name,
          size: file.size,
          type: file.type,
          sha256: file.sha256,
          uploaderKey,
        });
      }
      await recordAudit(tx, {
        action: "file.uploaded",
        templateIdentifier: template.identifier,
        metadata: {
          fieldKey: field.key,
          files: stored.map((f) => ({ name: f.name, size: f.size, type: f.type, sha256: f.sha256 })),
        },
      });
      return stored.map((f) => ({
        name: f.name,
        path: f.key,
        url: signedFileUrl(tx, f.key),
        size: f.size,
        type: f.type,
      }));
    });
  } catch (error) {
    // Nothing references the bytes when the rows were not written.
    await Promise.all(stored.map((f) => ctx.services.storage.delete(f.key).catch(() => {})));
    throw error;
  }
}
