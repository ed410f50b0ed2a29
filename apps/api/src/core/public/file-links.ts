import { eq, formUploads } from "@clinsign/db";
import { systemContext } from "../context";
import { safeEqual } from "../crypto";
import { AppError } from "../errors";
import type { PublicContext } from "../identity/public-context";
import { fileLinkSignature } from "../uploads/uploads";

/** Checks a signed file URL and returns the upload it names; 401 for a bad or expired signature, 404 when gone. */
export async function openSignedFile(
  pub: PublicContext,
  { path, exp, sig }: { path: string; exp: string | null; sig: string | null },
): Promise<{ name: string; type: string; storageKey: string }> {
  const expiry = Number(exp);
  if (
    !exp ||
    !sig ||
    !Number.isInteger(expiry) ||
    !safeEqual(sig, fileLinkSignature(pub.services.secrets, path, expiry))
  ) {
    throw new AppError("unauthorized", "invalid file link");
  }
  if (expiry < Date.now() / 1000) throw new AppError("unauthorized", "this file link has expired");
  const slash = path.indexOf("/");
  // The signature vouches for the path, and so for the organization it starts with.
  const { scope } = systemContext(pub.services, path.slice(0, slash), pub.request.requestId);
  const [upload] = await scope.select(formUploads, eq(formUploads.storageKey, path.slice(slash + 1))).limit(1);
  if (!upload) throw new AppError("not_found", "file not found");
  return { name: upload.name, type: upload.type, storageKey: upload.storageKey };
}
