import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * pdf.js's data files (the 14 standard fonts, CMaps, image decoders, colour profiles) from this
 * origin, so the portal's PDF viewer needs nothing from elsewhere (CSP `connect-src 'self'`,
 * offline installations). Only files of these folders of the installed pdfjs-dist are served.
 */
const FOLDERS = new Set(["standard_fonts", "cmaps", "wasm", "iccs"]);
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,100}$/;
const TYPES: Record<string, string> = {
  ".wasm": "application/wasm",
  ".js": "text/javascript; charset=utf-8",
  ".ttf": "font/ttf",
  ".icc": "application/vnd.iccprofile",
};

export async function GET(_request: Request, { params }: { params: Promise<{ folder: string; file: string }> }) {
  const { folder, file } = await params;
  if (!FOLDERS.has(folder) || !FILE_NAME.test(file) || file.startsWith("LICENSE"))
    return new Response("Not found", { status: 404 });
  try {
    // `next start` runs in apps/web, where pdfjs-dist is a dependency.
    const bytes = await readFile(join(process.cwd(), "node_modules", "pdfjs-dist", folder, file));
    const type = TYPES[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream";
    return new Response(new Uint8Array(bytes), {
      headers: { "content-type": type, "cache-control": "public, max-age=86400", "x-content-type-options": "nosniff" },
    });
  } catch {
    return new Response("Not found", { status: 404 });
  }
}
