import type { SigningState } from "@clinsign/contracts";
import { eq, signatureRequests } from "@clinsign/db";
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { recordSignatureEvent } from "./events";
import { expireIfDue } from "./requests";
import { findSignatureRequest, isPastExpiry, pinnedDocumentIdOf, type SignatureRequestRow } from "./request-read";
import { signerInAudit, signerOfContext, signersOf, staffSignerOf, type SignerRow } from "./signers";

/**
 * A signer on a request, what every step of the signer's side starts from (signing.ts, sign.ts,
 * decline.ts, signing-reads.ts): who acts (`partyOf`: the portal's signer or the named staff
 * signer), where the request stands for them (`stateOf`, `refusal`, `currentRequest`), the first
 * signer's opening (`openRequestBy`) and the organization's signed-copy period.
 */

/** The organization's signed-copy period, in days (the request's organization, from its scope). */
export async function signedCopyDaysOf(ctx: OrgContext): Promise<number> {
  return (await ctx.scope.organization()).signedCopyDays ?? 0;
}

export function stateOf(row: SignatureRequestRow, me: SignerRow | null = null): SigningState {
  if (row.visibility === "draft") return "unavailable";
  switch (row.status) {
    case "pending":
    case "opened":
      // Several signers: where this signer stands in the order.
      if (me?.status === "signed") return "signed";
      if (me?.status === "waiting") return "waiting";
      return "ready";
    default:
      return row.status;
  }
}

/** The request's signers (several signers) and the one this context acts as; null for a one-patient request. */
export interface Party {
  signers: SignerRow[];
  me: SignerRow;
}

/**
 * A request with several signers: its signers and the one the caller is. `pick` chooses (the
 * portal: the link's signer or the patient; the console: the named staff user). A request with
 * several signers that the caller is no signer of is refused; one-patient requests answer null.
 */
export async function partyOf(
  tx: OrgContext,
  row: SignatureRequestRow,
  pick: SignerPick,
  forUpdate = false,
): Promise<Party | null> {
  const signers = await signersOf(tx, row.id, forUpdate);
  if (signers.length === 0) {
    if (pick === "staff")
      throw new AppError("forbidden", "this request is signed by the patient alone", {
        reason: "not_the_named_signer",
      });
    return null;
  }
  const me = pick === "staff" ? staffSignerOf(tx, signers) : signerOfContext(tx, signers);
  if (!me) throw new AppError("not_found", "this signing link does not belong to a signer of the request");
  return { signers, me };
}

/** Who acts: the portal's signer (link, ticket, pass) or the staff member in the console. */
export type SignerPick = "portal" | "staff";

/** Several signers: the request becomes `opened` when its first signer opens it (the version was pinned at creation). */
export async function openRequestBy(tx: OrgContext, row: SignatureRequestRow, me: SignerRow, via: string) {
  if (row.status !== "pending") return row;
  const [opened] = await tx.scope
    .update(
      signatureRequests,
      { status: "opened", openedAt: new Date(), updatedAt: new Date() },
      eq(signatureRequests.id, row.id),
      eq(signatureRequests.status, "pending"),
    )
    .returning();
  if (!opened) return row;
  await recordSignatureEvent(
    tx,
    "signature.opened",
    {
      signatureId: row.id,
      documentId: pinnedDocumentIdOf(row),
      version: row.pinnedVersion,
      via,
      ...signerInAudit(me),
    },
    { patient_id: row.patientId },
  );
  return opened;
}

/**
 * Why the patient cannot act on this request now, or null when it is open for signing. A request
 * with several signers is open from its creation (its version is pinned then): `pending` too.
 */
export function refusal(row: SignatureRequestRow, party: Party | null = null): AppError | null {
  if (row.visibility === "draft")
    return new AppError("conflict", "this signature request is not available", { reason: "request_unavailable" });
  if (row.status !== "opened" && !(party && row.status === "pending")) {
    return new AppError("conflict", `this signature request is ${row.status}`, {
      reason: `request_${row.status}`,
      status: row.status,
    });
  }
  return null;
}

/** The signer's request as it stands now (an open request past its expiry is expired first). */
export async function currentRequest(ctx: OrgContext, signatureRequestId: string): Promise<SignatureRequestRow> {
  // A plain read (the page polls); only an open request past its expiry needs the locked path.
  const row = await findSignatureRequest(ctx, signatureRequestId);
  if (!isPastExpiry(row)) return row;
  return inTransaction(ctx, async (tx) => expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true)));
}
