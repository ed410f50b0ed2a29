/**
 * The commands that run without the services (`pnpm cli backup|restore <dir>`): they open the
 * database themselves, since a restore's target must be found empty and stay unmigrated, and a
 * PGlite backup copies the data directory while nothing has it open.
 */
import { resolve } from "node:path";
import { createBackup } from "../core/backup/backup";
import { restoreBackup } from "../core/backup/restore";
import type { Config } from "../env";
import { UsageError } from "./commands";

interface OfflineArgs {
  config: Config;
  /** The words after the command's name. */
  positionals: string[];
  /** Where progress goes. */
  stderr: { write(text: string): unknown };
}

type OfflineCommand = (args: OfflineArgs) => Promise<object>;

function folder(command: string, positionals: string[]): string {
  const [dir, ...rest] = positionals;
  if (!dir || rest.length > 0) throw new UsageError(`${command} needs one folder: pnpm cli ${command} <dir>`);
  return resolve(dir);
}

const progressTo = (stderr: OfflineArgs["stderr"]) => (line: string) => stderr.write(`${line}\n`);

const offlineCommands = new Map<string, OfflineCommand>([
  [
    "backup",
    ({ config, positionals, stderr }) => createBackup(config, folder("backup", positionals), progressTo(stderr)),
  ],
  [
    "restore",
    ({ config, positionals, stderr }) => restoreBackup(config, folder("restore", positionals), progressTo(stderr)),
  ],
]);

/** The offline command this word names, or undefined for the others (commands.ts). */
export function offlineCommandNamed(word: string): OfflineCommand | undefined {
  return offlineCommands.get(word);
}
