/**
 * The signer's credentials, looked up by the hash of their secret: the signing link's token, the
 * one-time ticket A4 hands out, and the signing pass the signing page keeps. Each names its
 * organization itself, so these are the only reads of signing data outside an OrgScope; each
 * answers the organization and the signature request, and everything after it runs in that
 * organization's scope (`contextFor(services, { kind: "signer", … })`).
 *
 * Stored names: a signing pass is a `signing_credentials` row of kind `session` (the wire calls
 * it `sessionToken`); a ticket is a row of kind `ticket`.
 */
import { createHmac } from "node:crypto";
import { and, eq, gt, isNull, signatureRequests, signatureSigners, signingCredentials } from "@clinsign/db";
import type { Services } from "../context";
import { safeEqual, sha256Hex } from "../crypto";

/** The request a signing credential opens, in its organization. */
export interface SignerGrant {
  organizationId: string;
  signatureRequestId: string;
  /** Several signers: the signer the credential belongs to (absent: the request's patient). */
  signerId?: string | null;
}

/** The columns of a `signing_credentials` row that make its grant. */
const credentialGrant = {
  organizationId: signingCredentials.organizationId,
  signatureRequestId: signingCredentials.signatureRequestId,
  signerId: signingCredentials.signerId,
};

/** `signing_credentials.kind` of a signing pass (a stored value; the code says "signing pass"). */
export const SIGNING_PASS_KIND = "session" as const;

/** The request whose signing link carries `token` (the `/sign/<token>` link), or null. */
export async function requestOfSigningLink(services: Services, token: string): Promise<SignerGrant | null> {
  const [row] = await services.db
    .select({ organizationId: signatureRequests.organizationId, id: signatureRequests.id })
    .from(signatureRequests)
    .where(eq(signatureRequests.tokenHash, sha256Hex(token)))
    .limit(1);
  if (row) return { organizationId: row.organizationId, signatureRequestId: row.id };
  // Several signers: a legal representative's, witness's or interpreter's own link.
  const [signer] = await services.db
    .select({
      organizationId: signatureSigners.organizationId,
      signatureRequestId: signatureSigners.signatureRequestId,
      id: signatureSigners.id,
    })
    .from(signatureSigners)
    .where(eq(signatureSigners.tokenHash, sha256Hex(token)))
    .limit(1);
  return signer
    ? { organizationId: signer.organizationId, signatureRequestId: signer.signatureRequestId, signerId: signer.id }
    : null;
}

/**
 * Uses up an A4 ticket (once, before it expires): the request it opens, or null for a ticket
 * that is unknown, used or expired.
 */
export async function consumeSigningTicket(services: Services, ticket: string): Promise<SignerGrant | null> {
  const [credential] = await services.db
    .update(signingCredentials)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(signingCredentials.secretHash, sha256Hex(ticket)),
        eq(signingCredentials.kind, "ticket"),
        isNull(signingCredentials.usedAt),
        gt(signingCredentials.expiresAt, new Date()),
      ),
    )
    .returning(credentialGrant);
  return credential ?? null;
}

/** The request a signing pass (the page's `sessionToken`) acts on while it lasts, or null. */
export async function requestOfSigningPass(services: Services, pass: string): Promise<SignerGrant | null> {
  const [credential] = await services.db
    .select(credentialGrant)
    .from(signingCredentials)
    .where(
      and(
        eq(signingCredentials.secretHash, sha256Hex(pass)),
        eq(signingCredentials.kind, SIGNING_PASS_KIND),
        gt(signingCredentials.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return credential ?? null;
}

/**
 * The page images of the signing page are `<img>` requests, which cannot carry the signing pass:
 * their URLs carry this grant instead, an HMAC of the organization and request under a key of its
 * own (`page-images`). It names one request, so an image URL opens nothing of another request,
 * and it does not change between visits, so the browser's cache keeps the images. What it shows
 * is checked on every request (core/signatures/page-images.ts): the request's pinned version,
 * only while the request is open for signing.
 */
function pageImagesTag(services: Services, grant: SignerGrant): string {
  return createHmac("sha256", services.secrets.deriveKey("page-images"))
    .update(`${grant.organizationId}\n${grant.signatureRequestId}`)
    .digest("base64url");
}

/** The path segment `<organization>.<request>.<tag>` of a request's page image URLs. */
export function pageImagesGrant(services: Services, grant: SignerGrant): string {
  return `${grant.organizationId}.${grant.signatureRequestId}.${pageImagesTag(services, grant)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The request a page image URL's grant names, or null for a grant we did not issue. No database read. */
export function requestOfPageImagesGrant(services: Services, value: string): SignerGrant | null {
  const [organizationId, signatureRequestId, tag, ...rest] = value.split(".");
  if (rest.length > 0 || !organizationId || !signatureRequestId || !tag) return null;
  if (!UUID.test(organizationId) || !UUID.test(signatureRequestId)) return null;
  const grant = { organizationId, signatureRequestId };
  return safeEqual(tag, pageImagesTag(services, grant)) ? grant : null;
}
