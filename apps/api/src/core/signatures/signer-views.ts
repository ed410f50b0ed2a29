import type { MadeSignature, PartySigner, SigningParty, StaffSignerItem } from "@clinsign/contracts";
import { eq, inArray, memberships, users, type SignatureFieldRect } from "@clinsign/db";
import type { OrgContext } from "../context";
import type { SignatureRequestRow } from "./request-read";
import { fieldsOfRole, waitingForOf, type SignerRow } from "./signers";

/**
 * How signers are shown (issue 20): their names (`signerLabels`, for the audit page too), what one
 * signer sees of the others (`partyView`) and what staff see in the request's detail.
 */

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
