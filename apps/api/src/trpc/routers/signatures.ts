import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  createSignatureRequestInput,
  designInput,
  listInstitutionBrandingsInput,
  listInstitutionIdsInput,
  listSignatureRequestsInput,
  patientQuery,
  declineAsStaffInput,
  revealSignerLinkInput,
  sendSigningLinkInput,
  signAsStaffInput,
  signatureRequestIdInput,
  staffSigningInput,
  updateAssignmentInput,
  updateSignatureRequestInput,
  verifySessionInput,
} from "@clinsign/contracts";
import { getDesign, saveDesign } from "../../core/branding/branding";
import { listInstitutionBrandingPage, listInstitutionIds } from "../../core/branding/institution-list";
import {
  createSignatureRequest,
  getSignatureRequest,
  getSignedArtifact,
  listCompletedProcesses,
  listOpenSignatureLinks,
  updateAssignment,
} from "../../core/signatures/requests";
import { startKioskSigning } from "../../core/signatures/kiosk";
import { sealAgain } from "../../core/signatures/seal";
import { listSignatureRequestPage } from "../../core/signatures/request-list";
import {
  getSignatureRequestDetail,
  revealSignerSigningLink,
  revealSigningLink,
  updateSignatureRequest,
} from "../../core/signatures/request-detail";
import { declineAsStaff } from "../../core/signatures/decline";
import { signAsStaff } from "../../core/signatures/sign";
import { staffSigningView } from "../../core/signatures/signing";
import { awaitingMySignature, staffSigningDocument } from "../../core/signatures/signing-reads";
import { verifyHostSession } from "../../core/signatures/verify-session";
import { signerCandidates } from "../../core/signatures/signer-plan";
import { sendSigningLink } from "../../core/signatures/send-link";
import { orgProcedure, staffProcedure } from "../trpc";
import { staffSessionCookieHeader } from "../../core/identity/cookies";

/** Signature requests (= assignments), their downloads, A4 verification, and branding. */
export const signaturesRouter = {
  create: orgProcedure
    .input(createSignatureRequestInput)
    .mutation(({ ctx, input }) => createSignatureRequest(ctx.org, input)),
  listOpen: orgProcedure.input(patientQuery).query(({ ctx, input }) => listOpenSignatureLinks(ctx.org, input)),
  listCompleted: orgProcedure.input(patientQuery).query(({ ctx, input }) => listCompletedProcesses(ctx.org, input)),
  get: orgProcedure.input(signatureRequestIdInput).query(({ ctx, input }) => getSignatureRequest(ctx.org, input)),
  /** Staff: start sealing over after the seal job gave up (`get` shows `sealFailed`). */
  sealAgain: staffProcedure.input(signatureRequestIdInput).mutation(({ ctx, input }) => sealAgain(ctx.org, input)),
  updateAssignment: orgProcedure
    .input(updateAssignmentInput)
    .mutation(({ ctx, input }) => updateAssignment(ctx.org, input)),
  /** The signed PDF (base64) or the metadata JSON of a completed request. */
  signedArtifact: orgProcedure
    .input(signatureRequestIdInput.extend({ kind: z.enum(["pdf", "metadata"]) }))
    .query(async ({ ctx, input }) => (await getSignedArtifact(ctx.org, input)).toString("base64")),
  /** A4: the host session token (the wire's `session_token`) for a one-time ticket into the signing page. */
  verifySession: orgProcedure.input(verifySessionInput).mutation(({ ctx, input }) => verifyHostSession(ctx.org, input)),
  createDesign: orgProcedure.input(designInput).mutation(({ ctx, input }) => saveDesign(ctx.org, input, "create")),
  replaceDesign: orgProcedure.input(designInput).mutation(({ ctx, input }) => saveDesign(ctx.org, input, "replace")),
  /** Staff: the organization's requests under the list contract (status incl. `failed`, visibility, patient, document, institution, time). */
  list: staffProcedure
    .input(listSignatureRequestsInput)
    .query(({ ctx, input }) => listSignatureRequestPage(ctx.org, input)),
  /** Staff: one request with its timeline (audit entries and webhook deliveries); no signing link. */
  detail: staffProcedure
    .input(signatureRequestIdInput)
    .query(({ ctx, input }) => getSignatureRequestDetail(ctx.org, input)),
  /** Staff: the signing link, for the desk; each call is an audit entry `signature.link_viewed`. */
  revealLink: staffProcedure
    .input(signatureRequestIdInput)
    .mutation(({ ctx, input }) => revealSigningLink(ctx.org, input)),
  /** Staff: sends the patient's or a link signer's link by SMS or e-mail; audited `signature.link_sent`. */
  sendLink: staffProcedure.input(sendSigningLinkInput).mutation(({ ctx, input }) => sendSigningLink(ctx.org, input)),
  /** Staff (several signers): a link signer's own link; audited like `revealLink`. */
  revealSignerLink: staffProcedure
    .input(revealSignerLinkInput)
    .mutation(({ ctx, input }) => revealSignerSigningLink(ctx.org, input)),
  /** Staff (several signers): what the named staff signer sees (their fields, the others' signatures, whose turn). */
  staffSigningView: staffProcedure
    .input(staffSigningInput)
    .mutation(({ ctx, input }) => staffSigningView(ctx.org, input)),
  /** Staff (several signers): the pinned PDF for the named staff signer. */
  staffSigningDocument: staffProcedure
    .input(staffSigningInput)
    .query(({ ctx, input }) => staffSigningDocument(ctx.org, input)),
  /** Staff (several signers): the named staff signer signs; anyone else gets 403 `not_the_named_signer`. */
  signAsStaff: staffProcedure.input(signAsStaffInput).mutation(({ ctx, input }) => signAsStaff(ctx.org, input)),
  /** Staff (several signers): the named staff signer declines; the request stops. */
  declineAsStaff: staffProcedure
    .input(declineAsStaffInput)
    .mutation(({ ctx, input }) => declineAsStaff(ctx.org, input)),
  /** Staff (several signers): members who may be named as a staff signer (the "New request" picker). */
  signerCandidates: staffProcedure.query(({ ctx }) => signerCandidates(ctx.org)),
  /** Staff (several signers): requests where it is the caller's turn to sign. */
  awaitingMySignature: staffProcedure.query(({ ctx }) => awaitingMySignature(ctx.org)),
  /**
   * Staff: sign at the desk. Hands this browser to the patient (a one-time signing ticket) and ends
   * the caller's staff session, here and in the cookie.
   */
  startKiosk: staffProcedure.input(signatureRequestIdInput).mutation(async ({ ctx, input }) => {
    const started = await startKioskSigning(ctx.org, {
      id: input.id,
      staffSessionId: ctx.staff.sessionId,
      startedBy: ctx.staff.name ?? ctx.staff.email,
    });
    ctx.setCookie(staffSessionCookieHeader(ctx.services.config, "", 0));
    return started;
  }),
  /** Staff: visibility, expiry and link (the service A7 uses); answers the detail. */
  update: staffProcedure
    .input(updateSignatureRequestInput)
    .mutation(({ ctx, input }) => updateSignatureRequest(ctx.org, input)),
  /** Staff: institutions with their own branding; the others show the organization default. */
  brandings: staffProcedure
    .input(listInstitutionBrandingsInput)
    .query(({ ctx, input }) => listInstitutionBrandingPage(ctx.org, input)),
  /** Staff: the organization's institution ids for pickers, by prefix. */
  institutions: staffProcedure
    .input(listInstitutionIdsInput)
    .query(({ ctx, input }) => listInstitutionIds(ctx.org, input)),
  getDesign: orgProcedure
    .input(z.object({ institution_id: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => getDesign(ctx.org, input)),
} satisfies TRPCRouterRecord;
