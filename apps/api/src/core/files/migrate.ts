import type { FileStorage } from "./storage";

export interface MigrationProgress {
  key: string;
  /** `copied`, or `skipped` when the target already holds the same bytes. */
  action: "copied" | "skipped";
  done: number;
  total: number;
}

export interface MigrationResult {
  total: number;
  copied: number;
  skipped: number;
  bytes: number;
}

/**
 * Copies every file of `from` to `to` under the same key (`pnpm cli storage migrate`). Safe to run
 * again and to resume after an interruption: a key the target already holds with the same size
 * (and the same SHA-256 where both backends keep it) is skipped, and each backend writes a file
 * atomically, so an interrupted copy leaves either the whole file or none of it. The source is
 * never changed. Files are streamed one at a time.
 */
export async function migrateStorage(
  from: FileStorage,
  to: FileStorage,
  onProgress: (progress: MigrationProgress) => void = () => {},
): Promise<MigrationResult> {
  const keys: string[] = [];
  for await (const key of from.list()) keys.push(key);
  keys.sort();
  const result: MigrationResult = { total: keys.length, copied: 0, skipped: 0, bytes: 0 };
  for (const key of keys) {
    const source = await from.stat(key);
    if (!source) continue; // deleted since it was listed
    const target = await to.stat(key);
    const same =
      target !== null &&
      target.size === source.size &&
      (!source.sha256 || !target.sha256 || source.sha256 === target.sha256);
    if (same) result.skipped++;
    else {
      const stream = await from.getStream(key);
      if (!stream) continue;
      const written = await to.putAs(key, stream.body);
      if (written.size !== source.size)
        throw new Error(`${key}: copied ${written.size} bytes, the source has ${source.size}`);
      if (source.sha256 && written.sha256 !== source.sha256) throw new Error(`${key}: the copy's SHA-256 differs`);
      result.copied++;
      result.bytes += written.size;
    }
    onProgress({ key, action: same ? "skipped" : "copied", done: result.copied + result.skipped, total: keys.length });
  }
  return result;
}
