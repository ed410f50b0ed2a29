import { isFieldRequired, PATIENT_ROLE, roleOfField, type CreatedSigner, type SignerInput } from "@clinsign/contracts";
import { eq, inArray, isNull, memberships, signatureSigners, users, type SignatureFieldRect } from "@clinsign/db";
import type { OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { normaliseMobile } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";
import { signingLink, type SignatureRequestRow } from "./request-read";
import { advanceTurns } from "./signers";

/**
 * A request's signers before they sign (issue 20): A1's `signers` checked against the version's
 * field roles (`planSigners`), stored with their links and the first turn (`createSigners`), and
 * the members the console offers as staff signers (`signerCandidates`).
 */

/** Roles that may be named as a staff signer (viewers change nothing, so they sign nothing). */
const SIGNING_ROLES = ["owner", "admin", "staff"] as const;

/** A signer as planned at creation, before it is stored. */
export interface PlannedSigner {
  role: string;
  kind: "patient" | "link" | "staff";
  required: boolean;
  staffUserId: string | null;
  name: string | null;
  phone: string | null;
}

/** The roles of a version's fields in field order, each with whether any of its fields is required. */
export function rolesOf(fields: SignatureFieldRect[]): Map<string, { required: boolean }> {
  const roles = new Map<string, { required: boolean }>();
  for (const field of fields) {
    const role = roleOfField(field);
    const known = roles.get(role);
    roles.set(role, { required: (known?.required ?? false) || isFieldRequired(field) });
  }
  return roles;
}

/** True when a version's fields name anyone but the patient: its requests have several signers. */
export const hasSeveralSigners = (fields: SignatureFieldRect[]): boolean =>
  fields.some((field) => roleOfField(field) !== PATIENT_ROLE);

const invalidSigners = (message: string, extra: Record<string, unknown> = {}) =>
  new AppError("invalid_request", `signers: ${message}`, { field: "signers", ...extra });

/**
 * A1's `signers` against the version's fields: null for a one-patient request (no other role),
 * else the signers in signing order (the patient first unless listed elsewhere). Refuses a role
 * without a field, a required role without a signer, a role twice, and a staff user who is not an
 * active member of the organization.
 */
export async function planSigners(
  tx: OrgContext,
  fields: SignatureFieldRect[],
  input: SignerInput[] | undefined,
): Promise<PlannedSigner[] | null> {
  const roles = rolesOf(fields);
  const listed = input ?? [];
  for (const signer of listed)
    if (!roles.has(signer.role))
      throw invalidSigners(`the document has no field for the role "${signer.role}"`, { role: signer.role });
  if (!hasSeveralSigners(fields)) return null;
  const seen = new Set<string>();
  for (const signer of listed) {
    if (seen.has(signer.role)) throw invalidSigners(`the role "${signer.role}" is named twice`, { role: signer.role });
    seen.add(signer.role);
    if (signer.role === PATIENT_ROLE && (signer.staff_user_id || signer.name || signer.phone))
      throw invalidSigners(
        "the patient signs through the request's own link; give their phone as patient_phone, nothing else",
        { role: signer.role },
      );
    if (signer.staff_user_id && signer.phone)
      throw invalidSigners(`a staff signer ("${signer.role}") signs in the console and gets no SMS`, {
        role: signer.role,
      });
  }
  const missing = [...roles].filter(([role, r]) => r.required && role !== PATIENT_ROLE && !seen.has(role));
  if (missing.length > 0)
    throw invalidSigners(`name who signs ${missing.map(([role]) => `"${role}"`).join(", ")}`, {
      roles: missing.map(([role]) => role),
    });
  const ordered: SignerInput[] = [
    ...(roles.has(PATIENT_ROLE) && !seen.has(PATIENT_ROLE) ? [{ role: PATIENT_ROLE }] : []),
    ...listed,
  ];
  const staffIds = ordered.flatMap((s) => (s.staff_user_id ? [s.staff_user_id] : []));
  const members = staffIds.length
    ? await tx.scope
        .query({ userId: memberships.userId })
        .from(memberships)
        // Viewers change nothing, so they sign nothing either.
        .where(
          inArray(memberships.userId, staffIds),
          isNull(memberships.deactivatedAt),
          inArray(memberships.role, [...SIGNING_ROLES]),
        )
    : [];
  const country = ordered.some((s) => s.phone) ? (await organizationProfile(tx)).phoneCountry : "";
  return ordered.map((signer) => {
    if (signer.staff_user_id && !members.some((m) => m.userId === signer.staff_user_id))
      throw invalidSigners(
        `staff_user_id of "${signer.role}" is not an active member of the organization who may sign (owner, admin or staff)`,
        {
          role: signer.role,
        },
      );
    let phone: string | null = null;
    if (signer.phone) {
      phone = normaliseMobile(signer.phone, country);
      if (!phone) throw invalidSigners(`the phone of "${signer.role}" must be a mobile number`, { role: signer.role });
    }
    return {
      role: signer.role,
      kind: signer.role === PATIENT_ROLE ? "patient" : signer.staff_user_id ? "staff" : "link",
      required: roles.get(signer.role)!.required,
      staffUserId: signer.staff_user_id ?? null,
      name: signer.name ?? null,
      phone,
    };
  });
}

/** Stores the planned signers of a new request (link signers get their own token) and starts the first turn. */
export async function createSigners(
  tx: OrgContext,
  request: SignatureRequestRow,
  planned: PlannedSigner[],
  patientLink: string,
): Promise<CreatedSigner[]> {
  const tokens = planned.map((s) => (s.kind === "link" ? randomSecret(32) : null));
  const rows = await tx.scope
    .insert(
      signatureSigners,
      planned.map((s, position) => ({
        signatureRequestId: request.id,
        role: s.role,
        position,
        kind: s.kind,
        required: s.required,
        staffUserId: s.staffUserId,
        name: s.name,
        phone: s.phone,
        tokenHash: tokens[position] ? sha256Hex(tokens[position]) : null,
        tokenEnc: tokens[position] ? tx.services.secrets.seal(tokens[position]) : null,
        status: "waiting" as const,
      })),
    )
    .returning();
  rows.sort((a, b) => a.position - b.position);
  await advanceTurns(tx, request.signingOrder, rows);
  return rows.map((row) => ({
    signer_id: row.id,
    role: row.role,
    kind: row.kind,
    name: row.name,
    signing_link:
      row.kind === "patient" ? patientLink : row.kind === "link" ? signingLink(tx, tokens[row.position]!) : null,
  }));
}

/** `signatures.signerCandidates`: active members who may be named as staff signers. */
export async function signerCandidates(ctx: OrgContext) {
  const rows = await ctx.scope
    .query({ userId: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(isNull(memberships.deactivatedAt), inArray(memberships.role, [...SIGNING_ROLES]));
  rows.sort((a, b) => (a.name ?? a.email).localeCompare(b.name ?? b.email) || a.email.localeCompare(b.email));
  return { items: rows };
}
