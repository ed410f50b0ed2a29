import type { SendSigningLinkInput, SentSigningLink } from "@clinsign/contracts";
import { recordAudit } from "../audit/audit";
import { afterCommit, inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { normaliseMobile } from "../form-requests/phone";
import { runJobNow } from "../jobs/execute";
import { messageJobHandler, queueMessage, REDACTED, usesOutbox } from "../messaging/messaging";
import { signingLinkEmail, signingLinkSms, smsLocale } from "../messaging/sms-texts";
import { organizationProfile } from "../organizations/profile";
import { findSignatureRequest, isPastExpiry, OPEN_STATUSES, versionOf } from "./request-read";
import { linkOfSigner, signerOfRequest } from "./signers";

/** A plain e-mail address check: the provider is the judge; this only refuses what cannot be one. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/;

/**
 * Staff send a signing link from the console (issue 31: until now they copied and pasted it): by
 * SMS to the number on the request (the signer's, with several signers) or one typed, or by
 * e-mail to a typed address. The text names the clinic and a neutral phrase, never the document,
 * in the language of the document the signer will read. The stored message keeps the link
 * blanked; the outbox keeps it revealable once where no provider is set up. Audited per signer.
 */
export async function sendSigningLink(ctx: OrgContext, input: SendSigningLinkInput): Promise<SentSigningLink> {
  return inTransaction(ctx, async (tx) => {
    const request = await findSignatureRequest(tx, input.id);
    if (request.visibility !== "active" || !OPEN_STATUSES.includes(request.status) || isPastExpiry(request))
      throw new AppError("conflict", "this request cannot be signed now (draft, signed, declined or expired)", {
        reason: "not_signable",
      });
    const signer = input.signerId ? await signerOfRequest(tx, request, input.signerId) : null;
    const link = linkOfSigner(tx, request, signer);
    const org = await organizationProfile(tx);
    const recipient = recipientOf(
      input,
      signer?.kind === "link" ? signer.phone : request.patientPhone,
      org.phoneCountry,
    );
    const locale = smsLocale((await versionOf(tx, request)).language, org.locale);
    const values = (shown: string) => ({ organization: org.name, link: shown });
    const email = input.channel === "email" ? signingLinkEmail(locale, values(link)) : null;
    const message = await queueMessage(tx, {
      channel: input.channel,
      recipients: [recipient],
      subject: email?.subject ?? null,
      body: email ? email.body : signingLinkSms(locale, values(link)),
      redactedBody: email ? signingLinkEmail(locale, values(REDACTED)).body : signingLinkSms(locale, values(REDACTED)),
      purpose: "signature.link_sent",
    });
    await recordAudit(tx, {
      action: "signature.link_sent",
      metadata: {
        signatureId: request.id,
        channel: input.channel,
        messageId: message.messageId,
        ...(signer && { signerId: signer.id, role: signer.role }),
      },
    });
    await afterCommit(tx, "signature.link_sent", () => runJobNow(tx.services, message.jobId, messageJobHandler));
    return {
      channel: input.channel,
      delivery: usesOutbox(tx, input.channel) ? ("outbox" as const) : ("provider" as const),
      messageId: message.messageId,
    };
  });
}

/** Where the link goes: the typed number or address, else (SMS) the number on the request. 400 `to` otherwise. */
function recipientOf(input: SendSigningLinkInput, knownPhone: string | null, phoneCountry: string): string {
  const typed = input.to?.trim() || null;
  if (input.channel === "email") {
    if (!typed || !EMAIL.test(typed))
      throw new AppError("invalid_request", "enter the e-mail address to send the link to", { field: "to" });
    return typed.toLowerCase();
  }
  const raw = typed ?? knownPhone;
  if (!raw) throw new AppError("invalid_request", "enter the mobile number to send the link to", { field: "to" });
  const mobile = normaliseMobile(raw, phoneCountry);
  if (!mobile) throw new AppError("invalid_request", "is not a mobile number", { field: "to" });
  return mobile;
}
