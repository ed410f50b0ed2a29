/**
 * What a file field's `accept` list (".pdf,image/*,application/pdf") means to a patient, in
 * words: "PDF, Bilder (JPG, PNG …)" rather than MIME types. The words are the page's (labels).
 */
export interface FileKindLabels {
  /** .pdf, application/pdf */
  pdf: string;
  /** image/*: any picture, with examples ("images (JPG, PNG …)"). */
  images: string;
  /** .doc, .docx and Word's MIME types. */
  word: string;
}

const PDF = new Set([".pdf", "application/pdf"]);
const WORD = new Set([
  ".doc",
  ".docx",
  "application/msword",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
]);
/** Single image formats, as people know them from file names. */
const IMAGE_NAMES: Record<string, string> = {
  ".jpg": "JPG",
  ".jpeg": "JPG",
  "image/jpeg": "JPG",
  ".png": "PNG",
  "image/png": "PNG",
  ".heic": "HEIC",
  "image/heic": "HEIC",
  ".gif": "GIF",
  "image/gif": "GIF",
  ".webp": "WEBP",
  "image/webp": "WEBP",
  ".tif": "TIFF",
  ".tiff": "TIFF",
  "image/tiff": "TIFF",
};

/** One entry of an accept list as a word; null for an empty entry. */
function kindOf(entry: string, labels: FileKindLabels): string | null {
  if (!entry) return null;
  if (PDF.has(entry)) return labels.pdf;
  if (WORD.has(entry)) return labels.word;
  if (entry === "image/*") return labels.images;
  const image = IMAGE_NAMES[entry];
  if (image) return image;
  // Another extension: its letters ("ZIP"); another MIME type: its subtype, or the type itself.
  if (entry.startsWith(".")) return entry.slice(1).toUpperCase();
  const [major, minor] = entry.split("/");
  if (minor === "*" || !minor) return major ?? entry;
  return /^[a-z0-9]{1,8}$/.test(minor) ? minor.toUpperCase() : entry;
}

/** The kinds an accept list allows, in its order, each once ("PDF, images (JPG, PNG …)"). */
export function describeAcceptedKinds(accept: string, labels: FileKindLabels): string {
  const entries = accept
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  const anyImage = entries.includes("image/*");
  const words: string[] = [];
  for (const entry of entries) {
    // "image/*" already names JPG and PNG among its examples.
    if (anyImage && IMAGE_NAMES[entry]) continue;
    const word = kindOf(entry, labels);
    if (word && !words.includes(word)) words.push(word);
  }
  return words.join(", ");
}
