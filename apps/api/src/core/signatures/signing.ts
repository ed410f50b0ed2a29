import type { OpenSigningInput, PatientLanguage, SigningState, SigningView } from "@clinsign/contracts";
import { eq, signatureRequests, signingCredentials } from "@clinsign/db";
import { getBranding } from "../branding/branding";
import { inTransaction, nowOf, type OrgContext } from "../context";
import { SIGNING_PASS_KIND } from "../credentials/signing";
import { randomSecret, sha256Hex } from "../crypto";
import { findDocument } from "../documents/documents";
import { AppError } from "../errors";
import { organizationNameOf } from "../organizations/profile";
import { recordSignatureEvent } from "./events";
import { expireIfDue, inTransactionThenRefuse } from "./requests";
import {
  findSignatureRequest,
  isPastExpiry,
  documentForLanguage,
  signerRequestId,
  versionForLanguage,
  versionOf,
  type SignatureRequestRow,
} from "./request-read";
import { pageImagesOf } from "./page-images";
import { signedCopyOf } from "./signed-copy";
import { fieldsOfRole, markSignerOpened } from "./signers";
import { partyView } from "./signer-views";
import { openRequestBy, partyOf, signedCopyDaysOf, stateOf, type Party } from "./signing-party";

/**
 * The signer's side of a signature request, behind the signing page: `openSigning` issues the
 * signing pass (the page's `sessionToken`) once core/public/signing-links.ts has resolved the
 * signing link or A4 ticket to a signer context; every later call
 * comes through `signerProcedure` (trpc.ts), which resolved that pass to a signer context of the
 * request's organization, and takes `(ctx, input)`. This file holds opening and what a signer
 * sees (`signing.open`, `signing.preview`, the staff signer's view); reading the document, status
 * and signed copy is signing-reads.ts, signing sign.ts, declining decline.ts.
 */

/** How long a signing pass lets the page act after opening a link (never beyond the request's expiry). */
const SIGNING_PASS_MINUTES = 60;

/** What the signing page shows for a link or ticket that names no request it may open. */
export const unknownSigningView = (): SigningView => emptyView("unknown");

const emptyView = (state: SigningState): SigningView => ({
  state,
  sessionToken: null,
  sessionExpiresAt: null,
  documentTitle: null,
  documentDescription: null,
  institutionId: null,
  organizationName: null,
  branding: null,
  pageCount: null,
  pageSizes: null,
  fields: null,
  expiresAt: null,
  signedCopy: null,
  signedCopyUntil: null,
});

/**
 * `signing.open`, once the signing link or A4 ticket was exchanged for the signer's context
 * (core/public/signing-links.ts). A `ready` request is marked `opened` with its document version pinned, and a signing pass is
 * issued for the page to keep. A signed request whose copy period has not ended also gets a
 * pass: it serves only the signer's copy (`signing.status`, `signing.signedDocument`); signing
 * and declining refuse it.
 */
export async function openSigning(ctx: OrgContext, input: OpenSigningInput): Promise<SigningView> {
  const opening = {
    via: "ticket" in input ? ("ticket" as const) : ("link" as const),
    language: input.language ?? null,
  };
  // A4 confirms the patient through their portal; a legal representative's or witness's own link
  // (several signers) has no such portal session and is their credential.
  if (opening.via === "link" && !ctx.signerId && (await ctx.scope.organization()).requireSessionVerification)
    return emptyView("verification_required");
  const signatureRequestId = signerRequestId(ctx);
  return inTransaction(ctx, async (tx) => {
    let row = await expireIfDue(tx, await findSignatureRequest(tx, signatureRequestId, true));
    const party = await signerPartyOrUnknown(tx, row, true);
    if (party === "unknown") return emptyView("unknown");
    const state = stateOf(row, party?.me);
    if (state === "unknown" || state === "unavailable" || state === "expired") return emptyView(state);
    if (party && state === "ready") {
      await markSignerOpened(tx, row, party.me);
      row = await openRequestBy(tx, row, party.me, opening.via);
    } else if (!party && row.status === "pending") {
      row = await pinAndOpen(tx, row, opening);
    }
    const version = await versionOf(tx, row);
    const copy = signedCopyOf(row, await signedCopyDaysOf(tx));
    const open = state === "ready" || state === "waiting" || state === "signed";
    // A pass to sign ends with the request's expiry; one for the copy with the copy period.
    const pass =
      open || (copy.until && copy.state !== "expired")
        ? await issueSigningPass(tx, row, open ? row.expiresAt : copy.until!)
        : null;
    return signerView(tx, row, version, party, copy, pass && { ...pass, via: opening.via });
  });
}

/** The signing page's signer on the request, or "unknown" when the link's signer is none of its signers. */
function signerPartyOrUnknown(ctx: OrgContext, row: SignatureRequestRow, forUpdate = false) {
  return partyOf(ctx, row, "portal", forUpdate).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") return "unknown" as const;
    throw error;
  });
}

/**
 * One patient's first opening: the document for the page's language (issue 19) and its newest
 * version are pinned now; later opens in other languages keep them (documentForLanguage answers
 * the pin).
 */
async function pinAndOpen(
  tx: OrgContext,
  row: SignatureRequestRow,
  input: { via: "link" | "ticket"; language: PatientLanguage | null },
): Promise<SignatureRequestRow> {
  const doc = await findDocument(tx, documentForLanguage(row, input.language));
  const [updated] = await tx.scope
    .update(
      signatureRequests,
      {
        status: "opened",
        pinnedDocumentId: doc.id,
        pinnedVersion: doc.currentVersion,
        openedAt: new Date(),
        updatedAt: new Date(),
      },
      eq(signatureRequests.id, row.id),
    )
    .returning();
  const opened = updated!;
  await recordSignatureEvent(
    tx,
    "signature.opened",
    {
      signatureId: opened.id,
      documentId: doc.id,
      version: doc.currentVersion,
      via: input.via,
      ...(opened.documentsByLanguage && { language: input.language, requestedDocumentId: opened.documentId }),
    },
    { patient_id: opened.patientId },
  );
  return opened;
}

interface SigningPass {
  secret: string;
  expiresAt: Date;
}

/** A pass just issued, and what opened the page it went to. */
type IssuedPass = SigningPass & { via: "link" | "ticket" };

/** A signing pass for the page to keep, stored by its hash: it lasts SIGNING_PASS_MINUTES, never beyond `end`. */
async function issueSigningPass(tx: OrgContext, row: SignatureRequestRow, end: Date): Promise<SigningPass> {
  const pass = {
    secret: randomSecret(32),
    expiresAt: new Date(Math.min(Date.now() + SIGNING_PASS_MINUTES * 60_000, end.getTime())),
  };
  await tx.scope.insert(signingCredentials, {
    signatureRequestId: row.id,
    signerId: tx.signerId ?? null,
    kind: SIGNING_PASS_KIND,
    secretHash: sha256Hex(pass.secret),
    expiresAt: pass.expiresAt,
    ip: tx.request.ip,
    userAgent: tx.request.userAgent,
  });
  return pass;
}

/** What the signing page shows of a request to one signer: `signing.open`'s answer, and the preview's. */
async function signerView(
  ctx: OrgContext,
  row: SignatureRequestRow,
  version: Awaited<ReturnType<typeof versionOf>>,
  party: Party | null,
  copy: ReturnType<typeof signedCopyOf>,
  pass: IssuedPass | null,
): Promise<SigningView> {
  const state = stateOf(row, party?.me);
  return {
    state,
    // The wire still calls the signing pass a session token (interface document).
    sessionToken: pass?.secret ?? null,
    sessionExpiresAt: pass?.expiresAt.toISOString() ?? null,
    documentTitle: version.title,
    documentDescription: version.description,
    institutionId: row.institutionExternalId,
    organizationName: await organizationNameOf(ctx),
    branding: await getBranding(ctx, row.institutionId),
    pageCount: version.pageCount,
    pageSizes: version.pageSizes,
    fields: party ? fieldsOfRole(version.fields, party.me.role) : version.fields,
    expiresAt: row.expiresAt.toISOString(),
    signedCopy: copy.state,
    signedCopyUntil: copy.until?.toISOString() ?? null,
    ...(party && { party: await partyView(ctx, row, version.fields, party.signers, party.me) }),
    pageImages: state === "ready" ? await pageImagesOf(ctx, row, version) : null,
    holdKey: state === "ready" && pass ? holdKeyOf(ctx, row) : null,
    holdUntil: state === "ready" && pass ? holdUntilOf(ctx, row, pass).toISOString() : null,
  };
}

/**
 * The key the signing page encrypts a signature with while it waits offline on the device
 * (issue 35): derived from the service key for this signer's link, never stored, the same at
 * every opening (what an earlier opening held opens again once the link is opened online).
 */
function holdKeyOf(ctx: OrgContext, row: SignatureRequestRow): string {
  return ctx.services.secrets.holdKey("signing-hold", `${row.id}:${ctx.signerId ?? "patient"}`);
}

/**
 * Until when a signature held offline may wait on the device: a ticket's device (often a shared
 * tablet) for the service's setting at most, and never past the pass it would be sent with; a
 * signing link (the patient's own phone) until the request expires.
 */
function holdUntilOf(ctx: OrgContext, row: SignatureRequestRow, pass: IssuedPass): Date {
  if (pass.via === "link") return row.expiresAt;
  return new Date(Math.min(pass.expiresAt.getTime(), Date.now() + ctx.services.config.kioskOfflineHoldMs));
}

/**
 * `signing.preview`: what the signing page shows for a link that is open for signing, read
 * without acting on it — no pass issued, nothing marked opened, nothing audited — so the web
 * server can put the document's first page into the page's HTML (it draws before the page's
 * scripts have loaded), and a link previewer fetching the URL changes nothing. Null for anything
 * but a request ready for this signer: every other state is `signing.open`'s to tell.
 */
export async function previewSigning(
  ctx: OrgContext,
  input: { language?: PatientLanguage },
): Promise<SigningView | null> {
  if (!ctx.signerId && (await ctx.scope.organization()).requireSessionVerification) return null;
  const row = await findSignatureRequest(ctx, signerRequestId(ctx));
  if (isPastExpiry(row, nowOf(ctx.services))) return null;
  const party = await signerPartyOrUnknown(ctx, row);
  if (party === "unknown" || stateOf(row, party?.me) !== "ready") return null;
  // The document `signing.open` would pin for this language (issue 19): the same choice.
  const version = await versionForLanguage(ctx, row, input.language);
  return signerView(ctx, row, version, party, signedCopyOf(row, await signedCopyDaysOf(ctx)), null);
}

/**
 * `signatures.staffSigningView`: what the named staff signer sees in the console, the same view
 * as the portal's (their fields, the others' signatures, whose turn). Opening it on their turn
 * counts as opening (`signature.signer_opened`). No signing pass: the staff session is the credential.
 */
export async function staffSigningView(ctx: OrgContext, input: { id: string }): Promise<SigningView> {
  return inTransactionThenRefuse(ctx, async (tx) => {
    let row = await expireIfDue(tx, await findSignatureRequest(tx, input.id, true));
    const party = (await partyOf(tx, row, "staff", true))!;
    const state = stateOf(row, party.me);
    if (state === "unavailable" || state === "expired")
      return { ...emptyView(state), expiresAt: row.expiresAt.toISOString() };
    if (state === "ready") {
      await markSignerOpened(tx, row, party.me);
      row = await openRequestBy(tx, row, party.me, "console");
    }
    const version = await versionOf(tx, row);
    return {
      ...emptyView(stateOf(row, party.me)),
      documentTitle: version.title,
      documentDescription: version.description,
      institutionId: row.institutionExternalId,
      organizationName: await organizationNameOf(tx),
      branding: await getBranding(tx, row.institutionId),
      pageCount: version.pageCount,
      pageSizes: version.pageSizes,
      fields: fieldsOfRole(version.fields, party.me.role),
      expiresAt: row.expiresAt.toISOString(),
      party: await partyView(tx, row, version.fields, party.signers, party.me),
    };
  });
}
