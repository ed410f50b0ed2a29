export function precompress(dir: string): Promise<number>;
export function precompressedFile(
  staticDir: string,
  method: string | undefined,
  url: string | undefined,
  acceptEncoding: string | undefined,
): Promise<{ file: string; size: number; type: string } | null>;
