import type { FhirPushTarget, SaveFhirPushTargetInput } from "@clinsign/contracts";
import { eq, fhirPushTargets } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { settingChanges } from "../audit/changes";
import { inTransaction, type OrgContext } from "../context";
import { AppError } from "../errors";
import { assertDeliverableWebhookUrl } from "../webhooks/destinations";

export type FhirPushTargetRow = typeof fhirPushTargets.$inferSelect;

/** The organization's FHIR server as staff see it, or null before one was saved. */
export async function getFhirPushTarget(ctx: OrgContext): Promise<FhirPushTarget | null> {
  const row = await findFhirPushTarget(ctx);
  return row ? toTarget(row) : null;
}

export async function findFhirPushTarget(ctx: Pick<OrgContext, "scope">): Promise<FhirPushTargetRow | undefined> {
  const [row] = await ctx.scope.select(fhirPushTargets).limit(1);
  return row;
}

/**
 * Saves the FHIR server. Its URLs follow the webhooks' rule (https to a public address; http and
 * private addresses only to hosts the deployment allows), checked at save and again at each
 * delivery. The secret is sealed; omitted, the stored one stays. Audited without the secret.
 */
export async function saveFhirPushTarget(ctx: OrgContext, input: SaveFhirPushTargetInput): Promise<FhirPushTarget> {
  const config = ctx.services.config;
  assertDeliverableWebhookUrl(config, input.baseUrl, "baseUrl");
  if (input.tokenUrl) assertDeliverableWebhookUrl(config, input.tokenUrl, "tokenUrl");
  return inTransaction(ctx, async (tx) => {
    const before = await findFhirPushTarget(tx);
    // A stored credential belongs to its kind: a bearer token is no private key. Another kind needs its own.
    const kept = before?.auth === input.auth ? before.secretEnc : null;
    const secretEnc = input.secret ? ctx.services.secrets.seal(input.secret) : kept;
    if (input.auth !== "none" && !secretEnc)
      throw new AppError("invalid_request", `secret: is required for ${input.auth}`, { field: "secret" }, [
        { key: "secret", message: `is required for ${input.auth}` },
      ]);
    const values = {
      enabled: input.enabled,
      baseUrl: input.baseUrl.replace(/\/+$/, ""),
      auth: input.auth,
      secretEnc: input.auth === "none" ? null : secretEnc,
      clientId: input.clientId ?? null,
      tokenUrl: input.tokenUrl ?? null,
      scope: input.scope || null,
      patientIdSystem: input.patientIdSystem ?? null,
      rnummerSystem: input.rnummerSystem ?? null,
      updatedAt: new Date(),
    };
    const [row] = before
      ? await tx.scope
          .update(fhirPushTargets, values, eq(fhirPushTargets.organizationId, before.organizationId))
          .returning()
      : await tx.scope.insert(fhirPushTargets, values).returning();
    await recordAudit(tx, {
      action: "config.updated",
      metadata: {
        kind: "fhir_push",
        ...settingChanges(before ? auditedSettings(before) : {}, auditedSettings(row!), {
          secret: input.secret !== undefined,
        }),
      },
    });
    return toTarget(row!);
  });
}

/** What the audit entry compares: everything but the sealed secret. */
const auditedSettings = (row: FhirPushTargetRow) => ({
  enabled: row.enabled,
  baseUrl: row.baseUrl,
  auth: row.auth,
  clientId: row.clientId,
  tokenUrl: row.tokenUrl,
  scope: row.scope,
  patientIdSystem: row.patientIdSystem,
  rnummerSystem: row.rnummerSystem,
});

function toTarget(row: FhirPushTargetRow): FhirPushTarget {
  return { ...auditedSettings(row), hasSecret: row.secretEnc !== null, updatedAt: row.updatedAt.toISOString() };
}
