import { randomBytes } from "node:crypto";
import type { OrganizationSettings, UpdateOrganizationInput } from "@clinsign/contracts";
import type { organizations } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { settingChanges } from "../audit/changes";
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { assertDeliverableWebhookUrls } from "../webhooks/destinations";

function toSettings(row: typeof organizations.$inferSelect): OrganizationSettings {
  return {
    id: row.id,
    name: row.name,
    webhookUrls: row.webhookUrls,
    hasWebhookSecret: row.webhookSecretEnc !== null,
    otpEnabled: row.otpEnabled,
    sessionMethod: row.sessionMethod,
    hasSessionJwtSecret: row.sessionJwtSecretEnc !== null,
    sessionJwksUrl: row.sessionJwksUrl,
    sessionIntrospectionUrl: row.sessionIntrospectionUrl,
    requireSessionVerification: row.requireSessionVerification,
    sessionAudience: row.sessionAudience,
    sessionIssuer: row.sessionIssuer,
    sessionRequireJti: row.sessionRequireJti,
    sessionAcceptMissingAudIss: row.sessionAcceptMissingAudIss,
    locale: row.locale,
    timeZone: row.timeZone,
    phoneCountry: row.phoneCountry,
    signedCopyDays: row.signedCopyDays,
    signatureReminderDays: row.signatureReminderDays,
    staffSessionIdleMinutes: row.staffSessionIdleMinutes,
    staffSessionMaxHours: row.staffSessionMaxHours,
    requireSecondFactor: row.requireSecondFactor,
    webhookFormat: row.webhookFormat,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The organization's own row (the tenant itself, addressed by the scope's id). */
export function loadOrganization(ctx: OrgContext) {
  return ctx.scope.organization();
}

export async function getOrganizationSettings(ctx: OrgContext): Promise<OrganizationSettings> {
  return toSettings(await loadOrganization(ctx));
}

/** Changes settings; secrets are encrypted before they reach the database. */
export async function updateOrganizationSettings(
  ctx: OrgContext,
  input: UpdateOrganizationInput,
): Promise<OrganizationSettings> {
  const { secrets } = ctx.services;
  if (input.webhookUrls) assertDeliverableWebhookUrls(ctx.services.config, input.webhookUrls);
  return inTransaction(ctx, async (tx) => {
    const current = await loadOrganization(tx);
    const next = {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.webhookUrls !== undefined && { webhookUrls: input.webhookUrls }),
      ...(input.webhookSecret !== undefined && { webhookSecretEnc: secrets.seal(input.webhookSecret) }),
      ...(input.otpEnabled !== undefined && { otpEnabled: input.otpEnabled }),
      ...(input.sessionMethod !== undefined && { sessionMethod: input.sessionMethod }),
      ...(input.sessionJwtSecret !== undefined && { sessionJwtSecretEnc: secrets.seal(input.sessionJwtSecret) }),
      ...(input.sessionJwksUrl !== undefined && { sessionJwksUrl: input.sessionJwksUrl }),
      ...(input.sessionIntrospectionUrl !== undefined && { sessionIntrospectionUrl: input.sessionIntrospectionUrl }),
      ...(input.requireSessionVerification !== undefined && {
        requireSessionVerification: input.requireSessionVerification,
      }),
      ...(input.sessionAudience !== undefined && { sessionAudience: input.sessionAudience }),
      ...(input.sessionIssuer !== undefined && { sessionIssuer: input.sessionIssuer }),
      ...(input.sessionRequireJti !== undefined && { sessionRequireJti: input.sessionRequireJti }),
      ...(input.sessionAcceptMissingAudIss !== undefined && {
        sessionAcceptMissingAudIss: input.sessionAcceptMissingAudIss,
      }),
      ...(input.locale !== undefined && { locale: input.locale }),
      ...(input.timeZone !== undefined && { timeZone: input.timeZone }),
      ...(input.phoneCountry !== undefined && { phoneCountry: input.phoneCountry }),
      ...(input.signedCopyDays !== undefined && { signedCopyDays: input.signedCopyDays }),
      ...(input.signatureReminderDays !== undefined && { signatureReminderDays: input.signatureReminderDays }),
      ...(input.staffSessionIdleMinutes !== undefined && { staffSessionIdleMinutes: input.staffSessionIdleMinutes }),
      ...(input.staffSessionMaxHours !== undefined && { staffSessionMaxHours: input.staffSessionMaxHours }),
      ...(input.requireSecondFactor !== undefined && { requireSecondFactor: input.requireSecondFactor }),
      ...(input.webhookFormat !== undefined && { webhookFormat: input.webhookFormat }),
    };
    const method = next.sessionMethod ?? current.sessionMethod;
    const ready = {
      none: true,
      hs256: Boolean(next.sessionJwtSecretEnc ?? current.sessionJwtSecretEnc),
      jwks: Boolean(next.sessionJwksUrl ?? current.sessionJwksUrl),
      introspection: Boolean(next.sessionIntrospectionUrl ?? current.sessionIntrospectionUrl),
    }[method];
    if (!ready) {
      const field = {
        none: "",
        hs256: "sessionJwtSecret",
        jwks: "sessionJwksUrl",
        introspection: "sessionIntrospectionUrl",
      }[method];
      throw new AppError("invalid_request", `session verification method ${method} needs ${field}`, { field });
    }
    if ((next.requireSessionVerification ?? current.requireSessionVerification) && method === "none") {
      throw new AppError("invalid_request", "requiring session verification needs a verification method", {
        field: "sessionMethod",
      });
    }
    const [row] = await tx.scope.updateOrganization({ ...next, updatedAt: new Date() }).returning();
    // What changed, from what to what; the two secrets only as changed (never a value in the log).
    const { webhookSecret, sessionJwtSecret, ...plain } = input;
    const diff = settingChanges(toSettings(current), plain, {
      webhookSecret: secretChanged(ctx, current.webhookSecretEnc, webhookSecret),
      sessionJwtSecret: secretChanged(ctx, current.sessionJwtSecretEnc, sessionJwtSecret),
    });
    await recordAudit(tx, { action: "config.updated", metadata: { kind: "settings", ...diff } });
    return toSettings(row!);
  });
}

/** Whether a secret given (undefined: not given) differs from the stored one; one that cannot be opened counts as changed. */
function secretChanged(ctx: OrgContext, storedEnc: string | null, given: string | undefined): boolean {
  if (given === undefined) return false;
  if (storedEnc === null) return true;
  try {
    return ctx.services.secrets.open(storedEnc) !== given;
  } catch {
    return true;
  }
}

/** Replaces the webhook signing secret and returns the new one, shown once. */
export async function rotateWebhookSecret(ctx: OrgContext): Promise<{ secret: string }> {
  // Standard Webhooks format, so receivers can pass it to their libraries unchanged.
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  await updateOrganizationSettings(ctx, { webhookSecret: secret });
  return { secret };
}
