import { randomInt } from "node:crypto";
import { sha256Hex } from "../crypto";
import type { IdentityStore } from "./store/identity-store";
import { factorsOf, replaceRecoveryCodeHashes, spendRecoveryCode } from "./store/factors";

/** One-time recovery codes: they stand in for a lost second factor, each works once. */

export const RECOVERY_CODE_COUNT = 10;

/** `xxxxx-xxxxx` from an alphabet without look-alikes: about 49 bits each, typed easily from paper. */
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, "");
const hashRecoveryCode = (code: string) => sha256Hex(`clinsign-recovery:${normalizeRecoveryCode(code)}`);

/** Replaces the account's recovery codes with ten new ones; returns them (shown once). */
export async function replaceRecoveryCodes(via: IdentityStore, userId: string): Promise<string[]> {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
  await replaceRecoveryCodeHashes(via, userId, [...codes].map(hashRecoveryCode));
  return [...codes];
}

/** Marks a recovery code used; the number left, or null when the code is not an unused one of the account. */
export async function useRecoveryCode(via: IdentityStore, userId: string, code: string): Promise<number | null> {
  if (normalizeRecoveryCode(code).length !== 10) return null;
  if (!(await spendRecoveryCode(via, userId, hashRecoveryCode(code)))) return null;
  return (await factorsOf(via, userId)).recoveryCodesLeft;
}

/** The first factor brings recovery codes; later ones keep the codes the member already has. */
export async function recoveryCodesForNewFactor(via: IdentityStore, userId: string): Promise<string[] | null> {
  return (await factorsOf(via, userId)).recoveryCodesLeft > 0 ? null : replaceRecoveryCodes(via, userId);
}
