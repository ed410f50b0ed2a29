import type { OpenSigningInput, PatientLanguage, SigningView } from "@clinsign/contracts";
import { contextFor, type OrgContext } from "../context";
import { consumeSigningTicket, requestOfSigningLink, type SignerGrant } from "../credentials/signing";
import type { PublicContext } from "../identity/public-context";
import { openSigning, previewSigning, unknownSigningView } from "../signatures/signing";

/**
 * `signing.open`: a signing link (unless the organization requires A4 verification) or a
 * one-time ticket from A4, exchanged for the signer's context in the request's organization;
 * `openSigning` issues the signing pass there. A link or ticket that names nothing: `unknown`.
 */
export async function openSigningLink(pub: PublicContext, input: OpenSigningInput): Promise<SigningView> {
  const grant =
    "ticket" in input
      ? await consumeSigningTicket(pub.services, input.ticket)
      : await requestOfSigningLink(pub.services, input.token);
  return grant ? openSigning(signerContext(pub, grant), input) : unknownSigningView();
}

/** `signing.preview`: the view of a link open for signing, read without acting on it; null for any other link. */
export async function previewSigningLink(
  pub: PublicContext,
  input: { token: string; language?: PatientLanguage },
): Promise<SigningView | null> {
  const grant = await requestOfSigningLink(pub.services, input.token);
  return grant ? previewSigning(signerContext(pub, grant), input) : null;
}

const signerContext = (pub: PublicContext, grant: SignerGrant): OrgContext =>
  contextFor(pub.services, { kind: "signer", ...grant }, pub.request);
