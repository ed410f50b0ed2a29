import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** PGlite allows one process per data folder; this lock file says which one has it. */
const lockFile = (dataDir: string) => join(dataDir, "server.pid");

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid of the live server holding `dataDir`, or null. */
export function serverHoldingDataDir(dataDir: string): number | null {
  const file = lockFile(dataDir);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
}

export function lockDataDir(dataDir: string): () => void {
  const holder = serverHoldingDataDir(dataDir);
  if (holder) throw new Error(`another server (pid ${holder}) is using the embedded database in ${dataDir}`);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(lockFile(dataDir), String(process.pid));
  return () => {
    try {
      if (readFileSync(lockFile(dataDir), "utf8").trim() === String(process.pid)) rmSync(lockFile(dataDir));
    } catch {
      // already gone
    }
  };
}
