/** `signed-<title>.pdf` with a title that is safe as a file name on every system. */
export function signedFileName(title: string | null | undefined): string {
  const safe = Array.from((title ?? "").normalize("NFC"), (char) =>
    char.charCodeAt(0) < 0x20 || char === "\u007f" ? " " : char,
  )
    .join("")
    .replace(/[\\/:*?"<>|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .slice(0, 120)
    .trim();
  return `signed-${safe || "document"}.pdf`;
}

export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Saves bytes under a file name through a temporary object URL and a download link. */
export function saveBytes(bytes: Uint8Array<ArrayBuffer>, type: string, fileName: string): void {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Saves a PDF given as base64. */
export function savePdf(base64: string, fileName: string): void {
  saveBytes(base64ToBytes(base64), "application/pdf", fileName);
}
