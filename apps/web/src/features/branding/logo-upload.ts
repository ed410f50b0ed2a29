import { uploadedLogo, type UploadedLogo } from "@clinsign/contracts";

/**
 * POST /staff/branding/logo (multipart, one `file` part): the API checks, sanitises and stores the
 * image and answers the public https URL to use as `logo_url`. Errors come in area A's envelope;
 * their message is thrown as the Error's message.
 */
export async function uploadLogo(file: File): Promise<UploadedLogo> {
  const body = new FormData();
  body.append("file", file, file.name);
  const response = await fetch("/staff/branding/logo", { method: "POST", body, credentials: "same-origin" });
  const json: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
    throw new Error(typeof message === "string" ? message : "");
  }
  return uploadedLogo.parse(json);
}
