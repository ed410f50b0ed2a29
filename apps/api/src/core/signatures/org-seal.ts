/**
 * An organization's own seal: admins upload their PKCS#12 in Settings, and the documents of that
 * organization are sealed with it instead of the service's certificate (SIGNING_P12_FILE or the
 * development certificate), which stays the default. The password opens the file once and is
 * never stored; the key and chain are stored SecretBox-sealed (ENCRYPTION_KEY, with its key ids).
 */
import { createPrivateKey } from "node:crypto";
import forge from "node-forge";
import {
  SEAL_EXPIRY_WARNING_DAYS,
  type OrganizationSeal,
  type SealCertificate,
  type SealRefusalReason,
  type UploadOrganizationSealInput,
} from "@clinsign/contracts";
import { organizationSeals } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext, type Services } from "../context";
import { isOrganizationSealCertificate } from "../credentials/sealed-copies";
import { AppError } from "../errors";
import { actsForOrganization } from "../permissions";
import {
  certificateFingerprint,
  distinguishedName,
  identityFromP12,
  identityOf,
  loadSigningIdentity,
  type SigningIdentity,
} from "./pades";

const DAY_MS = 24 * 3600 * 1000;

/**
 * Extended key usages that allow signing documents: any, e-mail protection (what most
 * "document signing" certificates of public CAs carry), document signing (RFC 9336), Adobe
 * Authentic Documents Trust and Microsoft document signing.
 */
const DOCUMENT_SIGNING_EKUS = new Set([
  "2.5.29.37.0",
  "1.3.6.1.5.5.7.3.4",
  "1.3.6.1.5.5.7.3.36",
  "1.2.840.113583.1.1.5",
  "1.3.6.1.4.1.311.10.3.12",
]);

const refuse = (reason: SealRefusalReason, field: "file" | "password", message: string) =>
  new AppError("invalid_request", message, { field, reason }, [{ key: field, message }]);

function describe(certificate: forge.pki.Certificate): SealCertificate {
  return {
    subject: distinguishedName(certificate.subject),
    issuer: distinguishedName(certificate.issuer),
    notBefore: certificate.validity.notBefore.toISOString(),
    notAfter: certificate.validity.notAfter.toISOString(),
    fingerprint: certificateFingerprint(certificate),
  };
}

/** Opens the P12 with its password; every way it can fail is the uploader's to fix. */
function openP12(p12: Buffer, password: string): SigningIdentity {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(p12.toString("binary"));
  } catch {
    throw refuse("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
  }
  try {
    // Checks the MAC (the password) before identityFromP12 looks for the key and certificate.
    forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/password|MAC could not be verified|decrypt/i.test(message))
      throw refuse("wrong_password", "password", "the password does not open this file");
    if (/Unknown OID|private key/i.test(message))
      throw refuse("unsupported_key", "file", "the file's private key is not an RSA key");
    throw refuse("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
  }
  try {
    return identityFromP12(p12, password, false);
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/no certificate for its private key/.test(message))
      throw refuse("key_mismatch", "file", "the private key does not belong to the certificate in the file");
    if (/no \(RSA\) private key/.test(message)) throw refuse("no_private_key", "file", "the file holds no private key");
    throw refuse("unsupported_key", "file", "the file's private key is not an RSA key");
  }
}

/** Refuses a certificate that cannot seal documents now. */
function checkUsable(certificate: forge.pki.Certificate, now: Date): void {
  if (certificate.validity.notAfter.getTime() <= now.getTime()) {
    throw refuse(
      "expired",
      "file",
      `the certificate expired on ${certificate.validity.notAfter.toISOString().slice(0, 10)}`,
    );
  }
  if (certificate.validity.notBefore.getTime() > now.getTime()) {
    throw refuse(
      "not_yet_valid",
      "file",
      `the certificate is valid only from ${certificate.validity.notBefore.toISOString().slice(0, 10)}`,
    );
  }
  const basic = certificate.getExtension("basicConstraints") as { cA?: boolean } | null;
  if (basic?.cA)
    throw refuse("ca_certificate", "file", "this is a CA certificate; upload the certificate that signs documents");
  const keyUsage = certificate.getExtension("keyUsage") as {
    digitalSignature?: boolean;
    nonRepudiation?: boolean;
  } | null;
  if (keyUsage && !keyUsage.digitalSignature && !keyUsage.nonRepudiation) {
    throw refuse(
      "key_usage",
      "file",
      "the certificate's key usage allows neither digital signatures nor non-repudiation",
    );
  }
  const eku = certificate.getExtension("extKeyUsage") as { value?: string } | null;
  if (eku?.value !== undefined) {
    const purposes = (forge.asn1.fromDer(eku.value).value as forge.asn1.Asn1[]).map((node) =>
      forge.asn1.derToOid(node.value as string),
    );
    if (!purposes.some((purpose) => DOCUMENT_SIGNING_EKUS.has(purpose))) {
      throw refuse(
        "extended_key_usage",
        "file",
        "the certificate's extended key usage does not include signing documents",
      );
    }
  }
}

interface StoredIdentity {
  /** PKCS#8 PEM. */
  key: string;
  /** PEMs, signing certificate first. */
  chain: string[];
}

function toView(row: typeof organizationSeals.$inferSelect, now: Date): NonNullable<OrganizationSeal["own"]> {
  const daysLeft = Math.floor((row.notAfter.getTime() - now.getTime()) / DAY_MS);
  return {
    certificate: {
      subject: row.subject,
      issuer: row.issuer,
      notBefore: row.notBefore.toISOString(),
      notAfter: row.notAfter.toISOString(),
      fingerprint: row.fingerprint,
    },
    chain: row.chain,
    uploadedAt: row.createdAt.toISOString(),
    daysLeft,
    expired: row.notAfter.getTime() <= now.getTime(),
    expiresSoon: daysLeft < SEAL_EXPIRY_WARNING_DAYS,
  };
}

function assertAdmin(ctx: OrgContext) {
  if (!actsForOrganization(ctx.actor))
    throw new AppError("forbidden", "only owners and admins manage the organization's seal");
}

async function findSealRow(ctx: OrgContext) {
  const [row] = await ctx.scope.select(organizationSeals).limit(1);
  return row ?? null;
}

/** The seal settings: the organization's own identity (if any) and the service's default. */
export async function getOrganizationSeal(ctx: OrgContext): Promise<OrganizationSeal> {
  const row = await findSealRow(ctx);
  const fallback = loadSigningIdentity(ctx.services.config);
  return {
    own: row ? toView(row, new Date()) : null,
    default: { subject: fallback.subject, fingerprint: fallback.fingerprint, development: fallback.development },
  };
}

/** Checks and stores an uploaded PKCS#12 as the organization's seal (replacing an earlier one). */
export async function uploadOrganizationSeal(
  ctx: OrgContext,
  input: UploadOrganizationSealInput,
): Promise<OrganizationSeal> {
  assertAdmin(ctx);
  const p12 = Buffer.from(input.p12Base64, "base64");
  if (p12.length === 0) throw refuse("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
  const identity = openP12(p12, input.password);
  const now = new Date();
  checkUsable(identity.certificate, now);
  const stored: StoredIdentity = {
    key: identity.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    chain: identity.chain.map((c) => forge.pki.certificateToPem(c)),
  };
  const values = {
    identityEnc: ctx.services.secrets.seal(JSON.stringify(stored)),
    fingerprint: identity.fingerprint,
    subject: identity.subject,
    issuer: distinguishedName(identity.certificate.issuer),
    notBefore: identity.certificate.validity.notBefore,
    notAfter: identity.certificate.validity.notAfter,
    chain: identity.chain.map(describe),
    uploadedBy: ctx.actor.type === "user" ? ctx.actor.id : null,
    createdAt: now,
  };
  await inTransaction(ctx, async (tx) => {
    await tx.scope
      .insert(organizationSeals, values)
      .onConflictDoUpdate({ target: organizationSeals.organizationId, set: values });
    await recordAudit(tx, {
      action: "seal.uploaded",
      metadata: {
        fingerprint: identity.fingerprint,
        subject: identity.subject,
        notAfter: values.notAfter.toISOString(),
      },
    });
  });
  return getOrganizationSeal(ctx);
}

/** Removes the organization's seal: its documents are sealed with the service's default again. */
export async function removeOrganizationSeal(ctx: OrgContext): Promise<OrganizationSeal> {
  assertAdmin(ctx);
  await inTransaction(ctx, async (tx) => {
    const [removed] = await tx.scope
      .delete(organizationSeals)
      .returning({ fingerprint: organizationSeals.fingerprint });
    if (removed) await recordAudit(tx, { action: "seal.removed", metadata: { fingerprint: removed.fingerprint } });
  });
  return getOrganizationSeal(ctx);
}

/** Opened identities by their sealed text: the key is parsed once per upload, not per seal. */
const opened = new Map<string, { identityEnc: string; identity: SigningIdentity }>();

/**
 * The identity that seals this organization's documents: its own while one is uploaded and
 * valid, else the service's (an expired own certificate falls back rather than sealing with it
 * or leaving patients' documents unsealed; the settings page warned 60 days before).
 */
export async function sealingIdentity(ctx: OrgContext): Promise<SigningIdentity> {
  const row = await findSealRow(ctx);
  const now = Date.now();
  if (!row || row.notAfter.getTime() <= now || row.notBefore.getTime() > now) {
    if (row)
      ctx.services.log.warn(
        { organizationId: ctx.scope.organizationId, fingerprint: row.fingerprint },
        "organization seal is not valid now; sealing with the default certificate",
      );
    return loadSigningIdentity(ctx.services.config);
  }
  const cached = opened.get(ctx.scope.organizationId);
  if (cached?.identityEnc === row.identityEnc) return cached.identity;
  const stored = JSON.parse(ctx.services.secrets.open(row.identityEnc)) as StoredIdentity;
  const identity = identityOf(
    createPrivateKey(stored.key),
    stored.chain.map((pem) => forge.pki.certificateFromPem(pem)),
    false,
  );
  opened.set(ctx.scope.organizationId, { identityEnc: row.identityEnc, identity });
  return identity;
}

/**
 * Whether a certificate fingerprint is one this service seals with: the environment's, the
 * development certificate, or an organization's uploaded seal (`/verify`, across organizations
 * by design: it names no organization's data).
 */
export async function isServiceCertificate(services: Services, fingerprint: string): Promise<boolean> {
  if (loadSigningIdentity(services.config).fingerprint === fingerprint) return true;
  return isOrganizationSealCertificate(services, fingerprint);
}
