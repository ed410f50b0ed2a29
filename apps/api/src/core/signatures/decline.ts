import type { z } from "zod";
import type { declineInput } from "@clinsign/contracts";
import { eq, signatureRequests, signatureSigners } from "@clinsign/db";
import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { recordSignatureEvent } from "./events";
import { expireIfDue, inTransactionThenRefuse } from "./requests";
import { findSignatureRequest, pinnedDocumentIdOf, signerRequestId } from "./request-read";
import { signerInAudit } from "./signers";
import { partyOf, refusal, type SignerPick } from "./signing-party";

/**
 * Declining: the patient or a link signer (`signing.decline`) or the named staff signer
 * (`signatures.declineAsStaff`) stops the request, with its `signature.declined` event.
 */

/** `signing.decline`'s input as the door parsed it. */
export type DeclineInput = z.output<typeof declineInput>;

/** `signing.decline`: the patient (or, with several signers, the link's signer) declines; repeated calls answer the same. */
export async function declineRequest(ctx: OrgContext, input: DeclineInput): Promise<{ state: "declined" }> {
  return declineAs(ctx, signerRequestId(ctx), "portal", input.reason);
}

/** `signatures.declineAsStaff`: the named staff signer declines; it stops the request like any signer's decline. */
export async function declineAsStaff(ctx: OrgContext, input: { id: string; reason?: string }) {
  return declineAs(ctx, input.id, "staff", input.reason);
}

async function declineAs(
  ctx: OrgContext,
  signatureRequestId: string,
  pick: SignerPick,
  reason: string | undefined,
): Promise<{ state: "declined" }> {
  return inTransactionThenRefuse(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
    const party = await partyOf(tx, row, pick, true);
    if (row.status === "declined") return { state: "declined" as const };
    const refused = refusal(row, party);
    if (refused) return refused;
    if (party?.me.status === "signed")
      return new AppError("conflict", "you have already signed this request", { reason: "already_signed" });
    const now = new Date();
    if (party)
      await tx.scope.update(
        signatureSigners,
        { status: "declined", declinedAt: now, declineReason: reason || null, updatedAt: now },
        eq(signatureSigners.id, party.me.id),
      );
    await tx.scope.update(
      signatureRequests,
      {
        status: "declined",
        declinedAt: now,
        declineReason: reason || null,
        ...(party && { declinedRole: party.me.role }),
        updatedAt: now,
      },
      eq(signatureRequests.id, row.id),
    );
    await recordSignatureEvent(
      tx,
      "signature.declined",
      {
        signatureId: row.id,
        documentId: pinnedDocumentIdOf(row),
        reason: reason || null,
        ...(party && signerInAudit(party.me)),
      },
      // One-patient requests keep the body they always had; several signers add who declined.
      { patient_id: row.patientId, reason: reason || null, ...(party && { role: party.me.role }) },
    );
    return { state: "declined" as const };
  });
}
