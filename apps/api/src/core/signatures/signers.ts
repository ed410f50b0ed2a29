import {
  isFieldRequired,
  PATIENT_ROLE,
  roleOfField,
  type CreatedSigner,
  type MadeSignature,
  type PartySigner,
  type SignerInput,
  type SigningOrder,
  type SigningParty,
  type StaffSignerItem,
} from "@clinsign/contracts";
import {
  and,
  eq,
  inArray,
  isNull,
  memberships,
  signatureSigners,
  users,
  type SignatureFieldRect,
  type SignerStatus,
} from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { randomSecret, sha256Hex } from "../crypto";
import { AppError } from "../errors";
import { normaliseMobile } from "../form-requests/phone";
import { organizationProfile } from "../organizations/profile";
import { signingLink, type SignatureRequestRow } from "./request-read";

/**
 * Several signers in order (issue 20; docs/signatures.md, "Several signers"). A request whose
 * document version has fields of roles other than the patient's has one `signature_signers` row per
 * role; one-patient requests have none and keep their own columns (A1–A10 unchanged). This module
 * holds what is the same for the portal and the console: who signs which fields, whose turn it is,
 * and what each signer sees.
 */

export type SignerRow = typeof signatureSigners.$inferSelect;

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

/** The signers of a request in signing order (empty for a one-patient request). */
export async function signersOf(ctx: OrgContext, signatureRequestId: string, forUpdate = false): Promise<SignerRow[]> {
  const query = ctx.scope
    .select(signatureSigners, eq(signatureSigners.signatureRequestId, signatureRequestId))
    .orderBy(signatureSigners.position);
  return forUpdate ? await query.for("update") : await query;
}

const done = (s: Pick<SignerRow, "status">) => s.status === "signed" || s.status === "skipped";

/**
 * Whose turn it is. Parallel: every signer who has not signed. Sequential: the unsigned signers in
 * order up to and including the first unsigned required one (an optional signer never holds up
 * the ones after it, and may sign alongside the next required one).
 */
export function signersOnTurn<S extends Pick<SignerRow, "id" | "status" | "required" | "position">>(
  order: SigningOrder,
  signers: S[],
): Set<string> {
  const open = signers.filter((s) => !done(s) && s.status !== "declined").sort((a, b) => a.position - b.position);
  if (order === "parallel") return new Set(open.map((s) => s.id));
  const turn = new Set<string>();
  for (const signer of open) {
    turn.add(signer.id);
    if (signer.required) break;
  }
  return turn;
}

/** The roles that must sign before `signer` may (empty when it is their turn). */
export function waitingForOf(order: SigningOrder, signers: SignerRow[], signer: SignerRow): string[] {
  if (signersOnTurn(order, signers).has(signer.id) || done(signer)) return [];
  return signers.filter((s) => s.position < signer.position && s.required && !done(s)).map((s) => s.role);
}

/** Every required signer has signed: the request can be sealed. */
export const allRequiredSigned = (signers: SignerRow[]): boolean =>
  signers.every((s) => !s.required || s.status === "signed");

/** Moves `waiting` signers whose turn has come to `pending` (their reminder counts from now). Updates `signers` in place. */
export async function advanceTurns(tx: OrgContext, order: SigningOrder, signers: SignerRow[]): Promise<void> {
  const turn = signersOnTurn(order, signers);
  const now = new Date();
  for (const signer of signers) {
    if (signer.status !== "waiting" || !turn.has(signer.id)) continue;
    await tx.scope.update(
      signatureSigners,
      { status: "pending", activatedAt: now, updatedAt: now },
      eq(signatureSigners.id, signer.id),
    );
    signer.status = "pending";
    signer.activatedAt = now;
  }
}

/** The signer a portal context acts as: its own link's signer, else the request's patient. */
export function signerOfContext(ctx: Pick<OrgContext, "signerId">, signers: SignerRow[]): SignerRow | null {
  if (ctx.signerId) return signers.find((s) => s.id === ctx.signerId) ?? null;
  return signers.find((s) => s.kind === "patient") ?? null;
}

/** The staff signer the calling staff member is on this request; 403 when they are not the named one. */
export function staffSignerOf(ctx: OrgContext, signers: SignerRow[]): SignerRow {
  const signer = signers.find((s) => s.kind === "staff" && s.staffUserId !== null && s.staffUserId === ctx.actor.id);
  if (ctx.actor.type !== "user" || !signer)
    throw new AppError("forbidden", "you are not the staff member named to sign this request", {
      reason: "not_the_named_signer",
    });
  return signer;
}

/** A signer's part of the document. */
export const fieldsOfRole = (fields: SignatureFieldRect[], role: string) =>
  fields.filter((field) => roleOfField(field) === role);

/** The names staff see for staff signers: the user's name, else their e-mail. */
async function staffNames(ctx: OrgContext, signers: SignerRow[]): Promise<Map<string, string>> {
  const ids = signers.flatMap((s) => (s.staffUserId ? [s.staffUserId] : []));
  if (ids.length === 0) return new Map();
  const rows = await ctx.scope
    .query({ id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(inArray(memberships.userId, ids));
  return new Map(rows.map((r) => [r.id, r.name || r.email]));
}

/** How a signer is named on the audit page and to the other signers. */
export async function signerLabels(ctx: OrgContext, signers: SignerRow[]): Promise<Map<string, string | null>> {
  const names = await staffNames(ctx, signers);
  return new Map(signers.map((s) => [s.id, s.kind === "staff" ? (names.get(s.staffUserId!) ?? null) : s.name]));
}

async function madeSignatureOf(ctx: OrgContext, signer: SignerRow): Promise<MadeSignature | null> {
  if (signer.status !== "signed") return null;
  if (signer.signatureMethod === "typed") return { kind: "typed", name: signer.typedName ?? "" };
  const png = signer.signatureImageKey ? await ctx.services.storage.get(signer.signatureImageKey) : null;
  return png ? { kind: "drawn", dataUrl: `data:image/png;base64,${png.toString("base64")}` } : null;
}

/** What one signer sees of the others: their roles, fields, signatures made, and whose turn it is. */
export async function partyView(
  ctx: OrgContext,
  request: SignatureRequestRow,
  fields: SignatureFieldRect[],
  signers: SignerRow[],
  me: SignerRow,
): Promise<SigningParty> {
  const labels = await signerLabels(ctx, signers);
  const party: PartySigner[] = [];
  for (const signer of signers)
    party.push({
      id: signer.id,
      role: signer.role,
      kind: signer.kind,
      position: signer.position,
      required: signer.required,
      label: labels.get(signer.id) ?? null,
      status: signer.status,
      signedAt: signer.signedAt?.toISOString() ?? null,
      signature: await madeSignatureOf(ctx, signer),
      fields: fieldsOfRole(fields, signer.role),
    });
  return {
    order: request.signingOrder,
    me: me.id,
    signers: party,
    waitingFor: waitingForOf(request.signingOrder, signers, me),
  };
}

/** The signers as staff see them in the request's detail (no token, phone or IP). */
export async function staffSignerItems(ctx: OrgContext, signers: SignerRow[]): Promise<StaffSignerItem[]> {
  const labels = await signerLabels(ctx, signers);
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return signers.map((s) => ({
    id: s.id,
    role: s.role,
    kind: s.kind,
    position: s.position,
    required: s.required,
    name: labels.get(s.id) ?? null,
    staffUserId: s.staffUserId,
    status: s.status,
    hasPhone: s.phone !== null,
    activatedAt: iso(s.activatedAt),
    openedAt: iso(s.openedAt),
    signedAt: iso(s.signedAt),
    signatureMethod: s.signatureMethod,
    declinedAt: iso(s.declinedAt),
    declineReason: s.declineReason,
  }));
}

/**
 * Who signs, in an audit entry the signer's own step writes: the row, its role and, since issue 31,
 * the name staff gave a link signer, so the log names the signer itself (the audit page reads the
 * actor's role and name from here).
 */
export const signerInAudit = (signer: Pick<SignerRow, "id" | "role" | "name">) => ({
  signerId: signer.id,
  role: signer.role,
  ...(signer.name && { signerName: signer.name }),
});

/** A signer opened the document (portal or console): recorded once per signer. */
export async function markSignerOpened(tx: OrgContext, request: SignatureRequestRow, signer: SignerRow) {
  if (signer.status !== "pending") return;
  const now = new Date();
  await tx.scope.update(
    signatureSigners,
    { status: "opened", openedAt: now, updatedAt: now },
    eq(signatureSigners.id, signer.id),
    eq(signatureSigners.status, "pending"),
  );
  signer.status = "opened";
  signer.openedAt = now;
  await recordAudit(tx, {
    action: "signature.signer_opened",
    metadata: { signatureId: request.id, documentId: request.documentId, ...signerInAudit(signer) },
  });
}

/** Marks the signers still open when the request is sealed (optional ones) as `skipped`. */
export async function skipUnsigned(tx: OrgContext, signers: SignerRow[]): Promise<void> {
  const open = signers.filter((s) => s.status !== "signed");
  if (open.length === 0) return;
  await tx.scope.update(
    signatureSigners,
    { status: "skipped", updatedAt: new Date() },
    inArray(
      signatureSigners.id,
      open.map((s) => s.id),
    ),
  );
}

/** A signer of the request, by id (404 for another request's). */
export async function signerOfRequest(
  tx: OrgContext,
  request: SignatureRequestRow,
  signerId: string,
): Promise<SignerRow> {
  const [signer] = await tx.scope
    .select(
      signatureSigners,
      and(eq(signatureSigners.id, signerId), eq(signatureSigners.signatureRequestId, request.id)),
    )
    .limit(1);
  if (!signer) throw new AppError("not_found", "signer not found", { field: "signerId" });
  return signer;
}

/** The link a signer is handed: the patient's is the request's (A2's rule), a link signer's their own; staff have none. */
export function linkOfSigner(tx: OrgContext, request: SignatureRequestRow, signer: SignerRow | null): string {
  const url =
    !signer || signer.kind === "patient"
      ? (request.assignmentUrl ?? signingLink(tx, tx.services.secrets.open(request.tokenEnc)))
      : signer.kind === "link" && signer.tokenEnc
        ? signingLink(tx, tx.services.secrets.open(signer.tokenEnc))
        : null;
  if (!url)
    throw new AppError("conflict", "a staff signer signs in the console and has no link", {
      reason: "staff_signer_has_no_link",
    });
  return url;
}

/** Staff: a link signer's own link, to hand over again; audited like the patient's. */
export async function revealSignerLink(
  tx: OrgContext,
  request: SignatureRequestRow,
  signerId: string,
): Promise<{ signingUrl: string }> {
  const signer = await signerOfRequest(tx, request, signerId);
  const url = linkOfSigner(tx, request, signer);
  await recordAudit(tx, {
    action: "signature.link_viewed",
    metadata: { signatureId: request.id, signerId: signer.id, role: signer.role, replaced: false },
  });
  return { signingUrl: url };
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

export type { SignerStatus };
