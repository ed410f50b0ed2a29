/**
 * The keys a restore needs besides the data: the key that encrypts stored secrets (webhook and
 * FHIR secrets, second factors) and the development signing certificate. Where the service
 * generated them under DATA_DIR they go into the backup's `keys/`; where the environment sets them
 * (ENCRYPTION_KEY, SIGNING_P12_FILE) they stay out, and the manifest keeps the encryption key's id
 * (a hash of it) so that a restore with another key is refused instead of leaving secrets unreadable.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../../env";
import { loadEncryptionKey } from "../../services";
import { AppError } from "../errors";
import { devSigningDir } from "../pdf-seal/pades";
import { hashFile, verifiedStream, writeHashed, type BackupFile, type BackupManifest } from "./manifest";

type KeyConfig = Pick<Config, "dataDir" | "encryptionKey" | "previousEncryptionKeys" | "signingP12">;

const ENCRYPTION_KEY_FILE = "encryption.key";
const SIGNING_FILES = ["dev-signing.p12", "dev-signing.password"];

/** Names a key without revealing it. */
const keyId = (key: Buffer) =>
  createHash("sha256").update("clinsign-encryption-key\0").update(key).digest("hex").slice(0, 16);

/** The ids of the keys the configuration opens secrets with (ENCRYPTION_KEY and the previous ones). */
function configuredKeyIds(config: KeyConfig): string[] {
  const keys = config.encryptionKey ? [config.encryptionKey, ...config.previousEncryptionKeys] : [];
  return keys.map((key) => keyId(loadEncryptionKey({ encryptionKey: key, dataDir: config.dataDir })));
}

/** Copies DATA_DIR's own keys into the backup's `keys/` and says where each key came from. */
export async function backupKeys(
  config: KeyConfig,
  root: string,
): Promise<{ keys: BackupManifest["keys"]; files: BackupFile[] }> {
  const files: BackupFile[] = [];
  const copy = async (from: string, path: string) => {
    files.push({ path, role: "key", ...(await writeHashed(createReadStream(from), join(root, path))) });
  };
  // Generated here when missing, as the next start would: the id must name the key secrets use.
  const key = loadEncryptionKey(config);
  if (!config.encryptionKey) await copy(join(config.dataDir, ENCRYPTION_KEY_FILE), `keys/${ENCRYPTION_KEY_FILE}`);
  let signing: BackupManifest["keys"]["signing"] = config.signingP12 ? "environment" : "none";
  const devDir = devSigningDir(config.dataDir);
  if (!config.signingP12 && SIGNING_FILES.every((name) => existsSync(join(devDir, name)))) {
    for (const name of SIGNING_FILES) await copy(join(devDir, name), `keys/signing/${name}`);
    signing = "data-dir";
  }
  return {
    keys: { encryption: { source: config.encryptionKey ? "environment" : "data-dir", id: keyId(key) }, signing },
    files,
  };
}

/**
 * Refuses a restore whose stored secrets the configured key could not open, or that would
 * replace a different key or signing certificate already in DATA_DIR.
 */
export async function checkKeys(config: KeyConfig, manifest: BackupManifest): Promise<void> {
  const { id, source } = manifest.keys.encryption;
  if (config.encryptionKey) {
    if (configuredKeyIds(config).includes(id)) return checkSigning(config, manifest);
    throw new AppError(
      "invalid_request",
      source === "data-dir"
        ? `the backup's secrets are encrypted with the key in its keys/${ENCRYPTION_KEY_FILE} (id ${id}), not with ` +
            "ENCRYPTION_KEY: set ENCRYPTION_KEY (or ENCRYPTION_KEYS_PREVIOUS) to that key"
        : `the backup's secrets are encrypted with another ENCRYPTION_KEY (id ${id}): set ENCRYPTION_KEY ` +
            "(or ENCRYPTION_KEYS_PREVIOUS) to the key its installation used",
    );
  }
  const file = join(config.dataDir, ENCRYPTION_KEY_FILE);
  if (existsSync(file)) {
    const present = keyId(loadEncryptionKey({ encryptionKey: (await readFile(file, "utf8")).trim(), dataDir: "" }));
    if (present !== id)
      throw new AppError(
        "conflict",
        `${file} holds another key than the backup's (id ${id}); restore into a new DATA_DIR`,
      );
  } else if (source === "environment")
    throw new AppError(
      "invalid_request",
      `the backup's secrets are encrypted with an ENCRYPTION_KEY (id ${id}): set ENCRYPTION_KEY to it`,
    );
  return checkSigning(config, manifest);
}

async function checkSigning(config: KeyConfig, manifest: BackupManifest): Promise<void> {
  if (manifest.keys.signing !== "data-dir" || config.signingP12) return;
  for (const name of SIGNING_FILES) {
    const present = join(devSigningDir(config.dataDir), name);
    const backed = manifest.files.find((f) => f.path === `keys/signing/${name}`);
    if (existsSync(present) && (await hashFile(present)).sha256 !== backed?.sha256)
      throw new AppError(
        "conflict",
        `${present} is another signing certificate than the backup's; restore into a new DATA_DIR`,
      );
  }
}

/** Writes the backup's DATA_DIR keys where the configuration uses them (checkKeys has passed). */
export async function restoreKeys(config: KeyConfig, root: string, manifest: BackupManifest): Promise<void> {
  const restore = async (path: string, to: string) => {
    const file = manifest.files.find((f) => f.path === path);
    if (file && !existsSync(to)) await writeHashed(verifiedStream(root, file), to);
  };
  if (!config.encryptionKey) await restore(`keys/${ENCRYPTION_KEY_FILE}`, join(config.dataDir, ENCRYPTION_KEY_FILE));
  if (!config.signingP12)
    for (const name of SIGNING_FILES) await restore(`keys/signing/${name}`, join(devSigningDir(config.dataDir), name));
}
