/**
 * The signing page's view of the document as page images (core/documents/page-images.ts draws
 * them once per stored PDF): where they are for the request's pinned version, one image, and the
 * pages' text. Each image URL carries the request's page-images grant (core/credentials/signing.ts)
 * and the version's SHA-256, so the browser may keep it for a year: another version is another URL.
 */
import type { SigningPageImages, SigningPageTexts } from "@clinsign/contracts";
import type { documentVersions } from "@clinsign/db";
import { nowOf, type OrgContext } from "../context";
import { pageImagesGrant } from "../credentials/signing";
import {
  queuePageImages,
  readPageImage,
  readPageImageManifest,
  type PageImageManifest,
} from "../documents/page-images";
import { AppError } from "../errors";
import {
  candidateVersions,
  findSignatureRequest,
  isPastExpiry,
  OPEN_STATUSES,
  versionOf,
  type SignatureRequestRow,
} from "./request-read";
import { signerRequestId } from "./request-read";

/** Where the web app serves the images (its proxy passes `/signing-pages/*` to this API path). */
export const PAGE_IMAGES_PATH = "/signing-pages";

type VersionRow = typeof documentVersions.$inferSelect;

/**
 * The page images of `version` for the signing page, or null while there are none (the page then
 * shows the PDF with pdf.js). Versions from before images existed get theirs drawn now, by a job.
 */
export async function pageImagesOf(
  tx: OrgContext,
  row: SignatureRequestRow,
  version: VersionRow,
): Promise<SigningPageImages | null> {
  if (!tx.services.config.pageImages) return null;
  const manifest = await readPageImageManifest(tx, version.storageKey);
  if (!manifest) {
    await queuePageImages(tx, version.storageKey);
    return null;
  }
  if (manifest.unavailable || manifest.pages.length !== version.pageCount) return null;
  const grant = pageImagesGrant(tx.services, { organizationId: row.organizationId, signatureRequestId: row.id });
  return {
    url: `${PAGE_IMAGES_PATH}/${grant}/${version.sha256}`,
    widths: manifest.widths,
    pages: manifest.pages.map((page) => ({
      width: page.width,
      height: page.height,
      rotate: page.rotate,
      heights: page.images.map((image) => image.height),
    })),
  };
}

/**
 * The request's version and its manifest, while the request is open for signing; else 404. With
 * `sha256` (an image URL's), before the pin any of the request's documents in other languages
 * (issue 19) may be the one: the preview showed the page's language's.
 */
async function openVersion(
  ctx: OrgContext,
  signatureRequestId: string,
  sha256?: string,
): Promise<{ version: VersionRow; manifest: PageImageManifest }> {
  const row = await findSignatureRequest(ctx, signatureRequestId);
  // A request not opened yet counts: the signing page's first HTML shows its pages (`signing.preview`).
  const open =
    row.visibility !== "draft" && OPEN_STATUSES.includes(row.status) && !isPastExpiry(row, nowOf(ctx.services));
  if (!open) throw new AppError("not_found", "page not found");
  const version =
    sha256 !== undefined && row.pinnedVersion === null && row.documentsByLanguage
      ? (await candidateVersions(ctx, row)).find((candidate) => candidate.sha256 === sha256)
      : await versionOf(ctx, row);
  if (!version) throw new AppError("not_found", "page not found");
  const manifest = await readPageImageManifest(ctx, version.storageKey);
  if (!manifest || manifest.unavailable) throw new AppError("not_found", "page not found");
  return { version, manifest };
}

/**
 * One page image of the request's pinned version (`sha256` names the version, as in the URL the
 * page got); 404 for another version, a page or width that does not exist, or a request that is
 * no longer open for signing.
 */
export async function getSigningPageImage(
  ctx: OrgContext,
  input: { signatureRequestId: string; sha256: string; page: number; width: number },
): Promise<Buffer> {
  const { version, manifest } = await openVersion(ctx, input.signatureRequestId, input.sha256);
  if (version.sha256 !== input.sha256) throw new AppError("not_found", "page not found");
  if (!manifest.pages.some((page) => page.number === input.page) || !manifest.widths.includes(input.width))
    throw new AppError("not_found", "page not found");
  const bytes = await readPageImage(ctx, version.storageKey, input.page, input.width);
  if (!bytes) throw new AppError("not_found", "page not found");
  return bytes;
}

/** `signing.pageTexts`: each page's text, for the visually hidden copy screen readers read. */
export async function getSigningPageTexts(ctx: OrgContext): Promise<SigningPageTexts> {
  const { manifest } = await openVersion(ctx, signerRequestId(ctx));
  return { pages: manifest.pages.map((page) => page.text) };
}
