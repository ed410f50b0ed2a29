import type { Attachment } from "@clinsign/contracts";

export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * Sends one file to `POST /api/embed/uploads` (through the web app's same-origin door) with
 * XMLHttpRequest, the one browser API that reports upload progress. Credentials travel in
 * headers (never in the URL) and first in the multipart body, so the API can refuse a stranger
 * before it reads the file.
 */
export function uploadFormFile(
  file: File,
  options: {
    /** `/api/embed/uploads`, or the SMS portal's `/f/api/embed/uploads` (where its cookie goes). */
    url: "/api/embed/uploads" | "/f/api/embed/uploads";
    headers: Record<string, string>;
    fields: Record<string, string>;
    fieldKey: string;
    onProgress(fraction: number): void;
  },
): Promise<Attachment> {
  const body = new FormData();
  for (const [name, value] of Object.entries(options.fields)) body.append(name, value);
  body.append("fieldKey", options.fieldKey);
  body.append("file", file, file.name);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", options.url);
    for (const [name, value] of Object.entries(options.headers)) request.setRequestHeader(name, value);
    request.responseType = "json";
    request.upload.onprogress = (event) => event.lengthComputable && options.onProgress(event.loaded / event.total);
    request.onload = () => {
      const answer = request.response as { ok?: boolean; files?: Attachment[]; error?: string } | null;
      const uploaded = answer?.files?.[0];
      if (request.status >= 200 && request.status < 300 && uploaded) resolve(uploaded);
      else reject(new UploadError(answer?.error ?? `upload failed (${request.status})`, request.status));
    };
    request.onerror = () => reject(new UploadError("network error", 0));
    request.send(body);
  });
}

/** One file of an embed session's form (the session in headers and body). */
export function uploadEmbedFile(
  sessionId: string,
  file: File,
  fieldKey: string,
  onProgress: (fraction: number) => void,
): Promise<Attachment> {
  return uploadFormFile(file, {
    url: "/api/embed/uploads",
    headers: { "x-session-id": sessionId },
    fields: { sessionId },
    fieldKey,
    onProgress,
  });
}

/** One file of an SMS link's form (its access cookie goes with the /f/ path). */
export function uploadLinkFile(
  linkToken: string,
  file: File,
  fieldKey: string,
  onProgress: (fraction: number) => void,
): Promise<Attachment> {
  return uploadFormFile(file, {
    url: "/f/api/embed/uploads",
    headers: { "x-portal-link": linkToken },
    fields: {},
    fieldKey,
    onProgress,
  });
}
