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
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { actsForOrganization } from "../permissions";
import { PdfLimitError, PdfTaskError, runPdfTask } from "../pdf-worker/run";
import type { OpenedP12 } from "../pdf-seal/open-p12";
import { pkcs12IterationCounts, Pkcs12FormatError } from "../pdf-seal/pkcs12-costs";
import {
  certificateFingerprint,
  distinguishedName,
  identityOf,
  loadSigningIdentity,
  type SigningIdentity,
} from "../pdf-seal/pades";

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

/**
 * Opens an uploaded P12: its iteration counts read first (pkcs12-costs.ts) and refused above
 * SEAL_P12_MAX_ITERATIONS, then opened in a PDF worker (open-p12.ts) within
 * SEAL_P12_TIMEOUT_SECONDS, one upload at a time, so that no file keeps the request thread busy.
 */
async function openUploadedP12(ctx: OrgContext, p12: Buffer, password: string): Promise<SigningIdentity> {
  const { pdfWorker, sealUpload } = ctx.services.config;
  let counts: number[];
  try {
    counts = pkcs12IterationCounts(p12);
  } catch (error) {
    if (error instanceof Pkcs12FormatError)
      throw refuse("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
    throw error;
  }
  const highest = Math.max(0, ...counts);
  if (highest > sealUpload.maxIterations)
    throw refuse(
      "iteration_count",
      "file",
      `the file's password protection asks for ${Number.isFinite(highest) ? highest : "an unbounded number of"} iterations; ` +
        `at most ${sealUpload.maxIterations} are accepted (export it again with fewer: OpenSSL's default is 2048)`,
    );
  let opened: OpenedP12;
  try {
    opened = await runPdfTask(
      pdfWorker,
      "openP12",
      { p12, password },
      { lane: "sealUpload", concurrency: 1, timeoutMs: sealUpload.timeoutMs },
    );
  } catch (error) {
    if (error instanceof PdfLimitError && error.limit === "time")
      throw refuse(
        "open_timeout",
        "file",
        `the file could not be opened within ${sealUpload.timeoutMs / 1000} s; export it again with fewer iterations`,
      );
    if (error instanceof PdfLimitError || error instanceof PdfTaskError)
      throw refuse("not_pkcs12", "file", "the file is not a PKCS#12 (.p12/.pfx) file");
    throw error;
  }
  if (!opened.ok) throw refuse(opened.reason, opened.field, opened.message);
  return identityOf(
    createPrivateKey(opened.key),
    opened.chain.map((pem) => forge.pki.certificateFromPem(pem)),
    false,
  );
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
  const identity = await openUploadedP12(ctx, p12, input.password);
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
