import { roleOfField, type SigningOrder } from "@clinsign/contracts";
import { and, eq, inArray, signatureSigners, type SignatureFieldRect, type SignerStatus } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { signingLink, type SignatureRequestRow } from "./request-read";

/**
 * Several signers in order (issue 20; docs/signatures.md, "Several signers"). A request whose
 * document version has fields of roles other than the patient's has one `signature_signers` row per
 * role; one-patient requests have none and keep their own columns (A1–A10 unchanged). This module
 * holds the signer rows and what is the same for the portal and the console: who signs which
 * fields, whose turn it is, who the caller is, their steps' audit facts, and a signer's link.
 * Planning them at creation is `signer-plan.ts`; how they are shown, `signer-views.ts`.
 */

export type SignerRow = typeof signatureSigners.$inferSelect;

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

export type { SignerStatus };
