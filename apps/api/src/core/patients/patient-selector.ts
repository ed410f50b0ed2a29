import { confirmationFieldOf, type PatientSelector } from "@clinsign/contracts";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { normaliseEntered } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";

/** E.164 as written: what the selector took before it read national numbers. */
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * A selector's phone in E.164, read as the console's new-request forms read numbers
 * (`normaliseEntered`: `+49 170 …`, `0049 170 …`, or national `0170 1234567` in the
 * organization's phone country); a well-formed E.164 number libphonenumber does not know (yet) is
 * kept as written, as the selector always took it. Null: no phone number. Never searched for as
 * typed then: a short string would match unrelated message and webhook bodies.
 */
export function selectorPhone(raw: string, phoneCountry: string): string | null {
  const typed = raw.trim();
  return normaliseEntered(typed, phoneCountry) ?? (E164.test(typed) ? typed : null);
}

/** 400 on `phone`: the selector's phone is no phone number. */
export const phoneRefused = () =>
  new AppError(
    "invalid_request",
    "phone: must be a phone number (e.g. +491701234567, or 0170 1234567 in the organization's country)",
    { field: "phone" },
    [{ key: "phone", message: "must be a phone number" }],
  );

/** The selector's phone in E.164, in the organization's phone country; 400 when it is no number. */
async function e164Of(ctx: OrgContext, phone: string): Promise<string> {
  const e164 = selectorPhone(phone, (await organizationProfile(ctx)).phoneCountry);
  if (!e164) throw phoneRefused();
  return e164;
}

/** The selector's phone as typed and in E.164 (both spellings find records); 400 when it is no number. */
export async function phoneSpellingsOf(ctx: OrgContext, phone: string | undefined): Promise<string[]> {
  if (!phone?.trim()) return [];
  return [...new Set([phone.trim(), await e164Of(ctx, phone)])];
}

/**
 * The selector as the services compare it: values trimmed, empty ones left out, the phone in
 * E.164 (400 on `phone` when it is no number). Legal holds store it so, and erasure checks holds and
 * the typed confirmation against it.
 */
export async function normalisedSelector(ctx: OrgContext, selector: PatientSelector): Promise<PatientSelector> {
  const patientId = selector.patientId?.trim() || undefined;
  const rnummer = selector.rnummer?.trim() || undefined;
  const phone = selector.phone?.trim() ? await e164Of(ctx, selector.phone) : undefined;
  if (!patientId && !rnummer && !phone)
    throw new AppError("invalid_request", "patientId: name at least one of patientId, rnummer, phone", {
      field: "patientId",
    });
  return { ...(patientId && { patientId }), ...(rnummer && { rnummer }), ...(phone && { phone }) };
}

/**
 * Whether `typed` names the patient as the (normalised) selector's confirmation field does
 * (`confirmationFieldOf`: the patient ID, else the case number, else the phone), after the same
 * normalisation: trimmed, exact; a phone in E.164, so `0170 1234567` confirms `+491701234567`.
 */
export async function confirmsPatient(ctx: OrgContext, selector: PatientSelector, typed: string): Promise<boolean> {
  const field = confirmationFieldOf(selector);
  const expected = selector[field];
  if (expected === undefined) return false;
  if (field !== "phone") return typed.trim() === expected;
  return selectorPhone(typed, (await organizationProfile(ctx)).phoneCountry) === expected;
}
