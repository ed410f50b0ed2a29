import { createHmac } from "node:crypto";
import type { Page } from "@playwright/test";

const PERIOD_MS = 30_000;

function codeOfStep(secretBase32: string, step: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const char of secretBase32.replace(/\s/g, "")) bits += alphabet.indexOf(char).toString(2).padStart(5, "0");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

const currentStep = () => Math.floor(Date.now() / PERIOD_MS);

/** RFC 6238 (SHA-1, 30 s, 6 digits), computed here from the secret the page shows, as an app would. */
export function totp(secretBase32: string, stepOffset = 0): string {
  return codeOfStep(secretBase32, currentStep() + stepOffset);
}

/**
 * An authenticator app for a test that signs in and confirms changes in quick succession: the
 * server takes each 30-second step once per account (a code seen is spent) and accepts one step
 * either side of now. `code()` gives the code of the next step not yet given, from now on, and
 * waits for the clock when the step after now is spent too.
 */
export class AuthenticatorApp {
  private lastStep = Number.NEGATIVE_INFINITY;

  constructor(readonly secret: string) {}

  async code(): Promise<string> {
    for (;;) {
      const now = currentStep();
      const step = Math.max(now, this.lastStep + 1);
      if (step <= now + 1) {
        this.lastStep = step;
        return codeOfStep(this.secret, step);
      }
      await new Promise((resolve) => setTimeout(resolve, PERIOD_MS - (Date.now() % PERIOD_MS) + 200));
    }
  }

  /** Six digits that are no code of the accepted steps. */
  wrongCode(): string {
    const now = currentStep();
    const valid = new Set([-1, 0, 1, 2].map((offset) => codeOfStep(this.secret, now + offset)));
    for (const candidate of ["000000", "111111", "222222"]) if (!valid.has(candidate)) return candidate;
    return "333333";
  }
}

/**
 * Chromium's virtual WebAuthn authenticator for `page`: a platform authenticator with discoverable
 * credentials that verifies the user, as a laptop's fingerprint reader or a phone would.
 */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
}
