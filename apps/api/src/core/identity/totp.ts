import { createHmac, randomBytes } from "node:crypto";
import type { TotpSetup } from "@clinsign/contracts";
import { accountById } from "./store/accounts";
import type { PublicContext } from "./public-context";
import { claimTotpStep, confirmTotpSecret, storeTotpSecret, totpOf } from "./store/factors";
import { safeEqual } from "../crypto";
import { AppError } from "../errors";

/** RFC 6238 as authenticator apps implement it: HMAC-SHA-1, 30-second steps, 6 digits. */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now, for clocks that drift a little: ±1 step, no more. */
const TOTP_WINDOW = 1;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=-]/g, "").toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The time step a moment falls in. */
export const totpStep = (at: number = Date.now()) => Math.floor(at / 1000 / TOTP_PERIOD_SECONDS);

/** The code of one time step (RFC 4226 HOTP with the step as counter, RFC 6238). */
export function totpCode(secretBase32: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Decode(secretBase32)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** TOTP_DIGITS;
  return binary.toString().padStart(TOTP_DIGITS, "0");
}

/** The step within ±1 of now whose code is `code`, or null. Compared in constant time. */
export function matchTotpStep(secretBase32: string, code: string, at: number = Date.now()): number | null {
  const now = totpStep(at);
  let found: number | null = null;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step++) {
    if (safeEqual(totpCode(secretBase32, step), code) && found === null) found = step;
  }
  return found;
}

/** A new secret: 160 bits, as RFC 4226 recommends for HMAC-SHA-1. */
export const newTotpSecret = () => base32Encode(randomBytes(20));

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function otpauthUri(secretBase32: string, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: "SHA1",
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** Six digits, spaces allowed ("123 456"); anything else is not a TOTP code. */
export function normalizeTotpCode(code: string): string | null {
  const digits = code.replace(/\s/g, "");
  return /^\d{6}$/.test(digits) ? digits : null;
}

/**
 * Checks a code against the account's confirmed secret and records its step, in one statement
 * that only succeeds while the step is newer than the last one used: a code (or an older one
 * within the window) is accepted once, even when two requests race.
 */
export async function useTotpCode(pub: PublicContext, userId: string, code: string): Promise<boolean> {
  const digits = normalizeTotpCode(code);
  const row = await totpOf(pub.identity, userId, "confirmed");
  if (!row || !digits) return false;
  const step = matchTotpStep(pub.services.secrets.open(row.secretEnc), digits);
  if (step === null) return false;
  return claimTotpStep(pub.identity, userId, step);
}

/**
 * Starts (or restarts) set-up for the account: a new secret, unconfirmed until `confirmTotp` sees
 * its first code; the secret for manual entry and the URI for the QR code.
 */
export async function totpSetupFor(pub: PublicContext, userId: string): Promise<TotpSetup> {
  const account = await accountById(pub.identity, userId);
  if (!account) throw new AppError("unauthorized", "please sign in");
  if ((await totpOf(pub.identity, account.id))?.confirmedAt)
    throw new AppError("conflict", "an authenticator app is already set up; remove it first", {
      reason: "totp_exists",
    });
  const secret = newTotpSecret();
  await storeTotpSecret(pub.identity, account.id, pub.services.secrets.seal(secret));
  return { secret, uri: otpauthUri(secret, account.email, "ClinSign") };
}

/**
 * Confirms set-up with the first code from the app (so the app surely has the secret), in the
 * caller's transaction. Throws 400 `invalid_request` (field `code`) for a wrong code.
 */
export async function confirmTotp(pub: PublicContext, input: { userId: string; code: string }): Promise<void> {
  const row = await totpOf(pub.identity, input.userId);
  if (!row || row.confirmedAt)
    throw new AppError("conflict", "start the authenticator set-up first", { reason: "totp_not_started" });
  const digits = normalizeTotpCode(input.code);
  const step = digits ? matchTotpStep(pub.services.secrets.open(row.secretEnc), digits) : null;
  if (step === null)
    throw new AppError("invalid_request", "this code is not the one the app shows now", { field: "code" });
  await confirmTotpSecret(pub.identity, input.userId, step);
}
