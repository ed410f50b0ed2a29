import { LOGO_MAX_BYTES, type UploadedLogo } from "@clinsign/contracts";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import type { FileStorage } from "../files/file-storage";
import { AppError } from "../errors";
import { assertMayChangeBranding } from "./branding";
import { sanitizeSvg } from "./svg-sanitizer";

/**
 * Uploaded logos. The bytes live in file storage under a key that starts with the organization
 * (`logo-<orgId>/<yyyymm>/<random>`), so a logo's public path names its organization and a
 * random part nobody chooses: every upload is a new file, and no one (another organization
 * least of all) can overwrite one. The public path is `/branding/logos/<orgId>/<yyyymm>/<random>`:
 * the API serves it, and the web app passes it through from its own origin, so the portal and
 * form pages show it under `img-src 'self'` and A5's `logo_url` can carry the path.
 */

export const LOGO_PATH_PREFIX = "/branding/logos/";
const LOGO_PATH =
  /^\/branding\/logos\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([0-9]{6})\/([A-Za-z0-9_-]{32,64})$/;

export type LogoType = "image/png" | "image/jpeg" | "image/webp" | "image/svg+xml";

/** The raster type the bytes prove, or null. */
export function sniffRasterLogo(bytes: Buffer): LogoType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString("latin1") === "RIFF" &&
    bytes.subarray(8, 12).toString("latin1") === "WEBP"
  )
    return "image/webp";
  return null;
}

/** Markup that is meant to be an SVG (the sanitizer then decides whether it is one it accepts). */
function looksLikeSvg(bytes: Buffer): boolean {
  const head = bytes
    .subarray(0, 4096)
    .toString("utf8")
    .replace(/^\uFEFF/, "");
  return /^\s*</.test(head) && /<svg[\s>]/.test(head);
}

/**
 * What is stored for an upload: raster images as sent (their type proven by their first bytes),
 * SVG rebuilt by the sanitizer. Anything else is a 415; a broken SVG a 400.
 */
export function prepareLogo(bytes: Buffer): { type: LogoType; bytes: Buffer } {
  if (bytes.length === 0) throw new AppError("invalid_request", "file: is empty", { field: "file" });
  if (bytes.length > LOGO_MAX_BYTES) throw logoTooLarge();
  const raster = sniffRasterLogo(bytes);
  if (raster) return { type: raster, bytes };
  if (looksLikeSvg(bytes)) {
    const text = bytes.toString("utf8");
    if (text.includes("\uFFFD"))
      throw new AppError("invalid_request", "file: the SVG is not UTF-8 text", { field: "file" });
    return { type: "image/svg+xml", bytes: Buffer.from(sanitizeSvg(text.replace(/^\uFEFF/, "")), "utf8") };
  }
  throw new AppError("unsupported_media_type", "file: the logo must be a PNG, JPEG, WebP or SVG image", {
    field: "file",
  });
}

export const logoTooLarge = () =>
  new AppError("payload_too_large", `file: the logo exceeds ${LOGO_MAX_BYTES / 1024} KiB`, { field: "file" });

/** Stores a logo for the caller's organization and answers the path to put into `logo_url`. */
export async function storeLogo(ctx: OrgContext, raw: Buffer): Promise<UploadedLogo> {
  assertMayChangeBranding(ctx);
  const logo = prepareLogo(raw);
  const stored = await ctx.services.storage.put(`logo-${ctx.scope.organizationId}`, logo.bytes);
  const logoUrl = `${LOGO_PATH_PREFIX}${stored.key.slice("logo-".length)}`;
  await recordAudit(ctx, {
    action: "branding.logo_uploaded",
    metadata: { logoUrl, contentType: logo.type, size: stored.size, sha256: stored.sha256 },
  });
  return { logoUrl, contentType: logo.type, size: stored.size };
}

/** A stored logo by its public path, with its type proven again from the stored bytes; null when unknown. */
export async function readLogo(
  storage: FileStorage,
  pathname: string,
): Promise<{ type: LogoType; bytes: Buffer } | null> {
  const match = LOGO_PATH.exec(pathname);
  if (!match) return null;
  const bytes = await storage.get(`logo-${match[1]}/${match[2]}/${match[3]}`);
  if (!bytes) return null;
  // Only sanitized SVG is ever stored, and it starts with the <svg> the sanitizer wrote.
  const type = sniffRasterLogo(bytes) ?? (bytes.subarray(0, 5).toString("latin1") === "<svg " ? "image/svg+xml" : null);
  return type ? { type, bytes } : null;
}
