import type { StartedKiosk } from "@clinsign/contracts";
import { eq, signatureRequests, staffSessions } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { expireIfDue } from "./requests";
import { findSignatureRequest } from "./request-read";
import { issueSigningTicket, TICKET_SECONDS } from "./verify-session";

/** `signatures.startKiosk`'s input: the request, and the staff session (row id) that hands the device over. */
export interface StartKioskInput {
  id: string;
  staffSessionId: string;
  /** The staff member's name (or e-mail), for the audit entry and the request's timeline. */
  startedBy: string;
}

/**
 * Signing at the desk: a staff member hands this browser (a clinic tablet) to the patient of one
 * open request. In one transaction: a one-time ticket into the signing page is minted (the same
 * `ticket` credential A4 hands out, 5 minutes to be opened), the audit entry
 * `signature.kiosk_started` names the staff member as actor, and the staff session the call came
 * with is deleted, so nothing of the console is reachable from the tablet without signing in again
 * (the door clears the cookie too). Requests that cannot be signed now answer 409 and end nothing.
 */
export async function startKioskSigning(ctx: OrgContext, input: StartKioskInput): Promise<StartedKiosk> {
  const outcome = await inTransaction(ctx, async (tx) => {
    const row = await expireIfDue(tx, await findSignatureRequest(tx, input.id, true));
    if (row.visibility !== "active" || (row.status !== "pending" && row.status !== "opened")) {
      return { refused: `the request is ${row.visibility === "active" ? row.status : row.visibility}` };
    }
    const ticket = await issueSigningTicket(tx, row.id);
    // Staff read "waiting for the device" until the request moves on (issue 35).
    await tx.scope.update(signatureRequests, { kioskStartedAt: new Date() }, eq(signatureRequests.id, row.id));
    await recordAudit(tx, {
      action: "signature.kiosk_started",
      metadata: {
        signatureId: row.id,
        startedBy: input.startedBy,
        ticketExpiresInSeconds: TICKET_SECONDS,
        staffSessionEnded: true,
      },
    });
    await tx.scope.delete(staffSessions, eq(staffSessions.id, input.staffSessionId));
    return { ticket };
  });
  // An expiry found on the way is committed with its audit entry before the refusal.
  if ("refused" in outcome) throw new AppError("conflict", `${outcome.refused}: it cannot be signed at the desk`);
  return { kioskPath: `/kiosk/${outcome.ticket}` };
}
