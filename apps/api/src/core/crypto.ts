import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from "node:crypto";

/** URL-safe random secret with `bytes` of entropy (default 32 bytes = 256 bits). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256Hex(value: string | Uint8Array): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time string comparison; unequal lengths compare a digest so timing stays flat. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

// scrypt with N=2^15, r=8 needs 32 MiB per hash: memory-hard, and within Node's default maxmem when raised.
export const PASSWORD_HASHING = { N: 1 << 15, r: 8, p: 1, keyLength: 64, maxmem: 64 * 1024 * 1024 };

/**
 * Under the test runner passwords are hashed at N=2^10: the same scheme and code at 1/32 of the
 * work, as Rails and Django lower their hashers' cost in tests. Hashing the test owners' passwords
 * was most of the identity tests' time (trust.test.ts: 91 s of tests before, 20 s after). Verifying
 * reads N from the stored hash, so a production hash verifies unchanged (crypto.test.ts checks both).
 */
const SCRYPT = underTestRunner() ? { ...PASSWORD_HASHING, N: 1 << 10 } : PASSWORD_HASHING;

function underTestRunner(): boolean {
  // Not configuration (src/env.ts): vitest's own marks, and only when run from source, never in the build.
  // eslint-disable-next-line no-restricted-properties
  const { VITEST, NODE_ENV } = process.env;
  return import.meta.url.endsWith(".ts") && Boolean(VITEST) && NODE_ENV === "test";
}

function scryptAsync(password: string, salt: Buffer, params: typeof SCRYPT): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password,
      salt,
      params.keyLength,
      { N: params.N, r: params.r, p: params.p, maxmem: params.maxmem },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string, params = SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await scryptAsync(password, Buffer.from(salt, "base64"), {
    ...SCRYPT,
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keyLength: expected.length,
  });
  return timingSafeEqual(key, expected);
}

/** A hash to verify against when the user does not exist, so both paths cost the same. */
export const decoyPasswordHash = hashPassword(randomSecret());

/** AES-256-GCM for secrets the service must read back (webhook signing secrets, JWT secrets). */
/**
 * AES-256-GCM for stored secrets. A sealed value names the key that sealed it (the first bytes of
 * its SHA-256), so ENCRYPTION_KEY can be rotated: new values use the current key, values sealed
 * with a previous one still open while that key is listed.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly keysById: Map<string, Buffer>;
  constructor(key: Buffer, previous: Buffer[] = []) {
    for (const k of [key, ...previous]) if (k.length !== 32) throw new Error("encryption key must be 32 bytes");
    this.key = key;
    this.keysById = new Map([...previous, key].map((k) => [keyId(k), k]));
  }
  /** A separate key for one purpose (e.g. signing file URLs), so the encryption key signs nothing itself. */
  deriveKey(purpose: string): Buffer {
    return createHmac("sha256", this.key).update(`clinsign:${purpose}`).digest();
  }
  /**
   * The key a patient page encrypts what it holds offline with (issue 35): one per link or
   * session (`subject`), derived from the service key, never stored, the same at every opening.
   */
  holdKey(purpose: "signing-hold" | "form-hold", subject: string): string {
    return createHmac("sha256", this.deriveKey(purpose)).update(subject).digest("base64url");
  }
  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [
      "v2",
      keyId(this.key),
      iv.toString("base64"),
      cipher.getAuthTag().toString("base64"),
      body.toString("base64"),
    ].join(".");
  }
  open(sealed: string): string {
    const parts = sealed.split(".");
    // v1 (before key ids) was always sealed with the key of its time: try the current one, then the previous.
    const [keys, iv, tag, body] =
      parts[0] === "v2" && parts.length === 5
        ? [[this.keysById.get(parts[1]!)].filter((k): k is Buffer => !!k), parts[2], parts[3], parts[4]]
        : parts[0] === "v1" && parts.length === 4
          ? [[this.key, ...[...this.keysById.values()].filter((k) => k !== this.key)], parts[1], parts[2], parts[3]]
          : [[], undefined, undefined, undefined];
    if (!iv || !tag || !body) throw new Error("unknown secret format");
    if (keys.length === 0) throw new Error("this secret was sealed with a key that is no longer configured");
    for (const key of keys) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
        decipher.setAuthTag(Buffer.from(tag, "base64"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
      } catch {
        // not this key
      }
    }
    throw new Error("this secret cannot be opened with the configured keys");
  }
}

/** Names a key without revealing it: 8 hex characters of its SHA-256. */
const keyId = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 8);
