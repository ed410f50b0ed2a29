import type { SaveSsoSettingsInput, SsoSettings } from "@clinsign/contracts";
import { asc, eq, memberships, organizationSso, ssoDomains, users } from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import { inTransaction, type OrgContext } from "../../context";
import { ssoDomainClaimedElsewhere } from "../store/sso";
import { AppError } from "../../errors";
import { discoverProvider, OidcError } from "./oidc";
import { ssoRedirectUri } from "./sign-in";

async function owners(ctx: OrgContext) {
  return ctx.scope
    .query({ id: users.id, email: users.email, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.role, "owner"))
    .orderBy(asc(users.email));
}

/** The organization's OpenID Connect settings as admins see them: the client secret never leaves. */
export async function getSsoSettings(ctx: OrgContext): Promise<SsoSettings> {
  const [config] = await ctx.scope.select(organizationSso);
  const domains = await ctx.scope.select(ssoDomains).orderBy(asc(ssoDomains.domain));
  return {
    configured: Boolean(config),
    enabled: config?.enabled ?? false,
    displayName: config?.displayName ?? "",
    issuer: config?.issuer ?? "",
    clientId: config?.clientId ?? "",
    hasClientSecret: Boolean(config?.clientSecretEnc),
    allowedDomains: domains.map((d) => d.domain),
    roleClaim: config?.roleClaim ?? "groups",
    roleMapping: config?.roleMapping ?? [],
    ssoOnly: config?.ssoOnly ?? false,
    breakGlassUserId: config?.breakGlassUserId ?? null,
    redirectUri: ssoRedirectUri(ctx.services),
    loginUrl: `${ctx.services.config.publicWebUrl}/login/${ctx.scope.organizationId}`,
    owners: await owners(ctx),
    updatedAt: config?.updatedAt.toISOString() ?? null,
  };
}

/**
 * Saves the provider settings (admins). An enabled provider must answer discovery with the same
 * issuer; a domain already claimed by another organization is a conflict; SSO-only needs a
 * break-glass owner, so the organization can never lock itself out. Audited by the names of what
 * changed, never the secret.
 */
export async function saveSsoSettings(ctx: OrgContext, input: SaveSsoSettingsInput): Promise<SsoSettings> {
  const issuer = input.issuer.trim();
  if (input.enabled) {
    try {
      await discoverProvider(ctx.services, issuer);
    } catch (error) {
      if (!(error instanceof OidcError)) throw error;
      throw new AppError(
        "invalid_request",
        `the provider's discovery document could not be read (${error.detail ?? error.reason})`,
        { field: "issuer" },
      );
    }
  }
  const domains = [...new Set(input.allowedDomains)];
  await inTransaction(ctx, async (tx) => {
    const [current] = await tx.scope.select(organizationSso);
    const currentDomains = (await tx.scope.select(ssoDomains).orderBy(asc(ssoDomains.domain))).map((d) => d.domain);
    if (!current && !input.clientSecret)
      throw new AppError("invalid_request", "the client secret is required", { field: "clientSecret" });
    if (input.ssoOnly) {
      if (!input.breakGlassUserId)
        throw new AppError("invalid_request", "SSO only needs a break-glass owner who may still use a password", {
          field: "breakGlassUserId",
        });
    }
    if (input.breakGlassUserId && !(await owners(tx)).some((o) => o.id === input.breakGlassUserId)) {
      throw new AppError("invalid_request", "the break-glass account must be an owner of this organization", {
        field: "breakGlassUserId",
      });
    }
    // Domains are unique across organizations: whether another one named it is not this one's data.
    const taken = await ssoDomainClaimedElsewhere(tx.scope, tx.scope.organizationId, domains);
    if (taken)
      throw new AppError("conflict", `the domain ${taken} is already used for single sign-on by another organization`, {
        field: "allowedDomains",
      });
    const values = {
      enabled: input.enabled,
      displayName: input.displayName,
      issuer,
      clientId: input.clientId,
      roleClaim: input.roleClaim,
      roleMapping: input.roleMapping,
      ssoOnly: input.ssoOnly,
      breakGlassUserId: input.breakGlassUserId,
      updatedAt: new Date(),
      ...(input.clientSecret !== undefined && { clientSecretEnc: ctx.services.secrets.seal(input.clientSecret) }),
    };
    if (current) await tx.scope.update(organizationSso, values);
    else await tx.scope.insert(organizationSso, { ...values, clientSecretEnc: values.clientSecretEnc! });
    await tx.scope.delete(ssoDomains);
    if (domains.length)
      await tx.scope.insert(
        ssoDomains,
        domains.map((domain) => ({ domain })),
      );
    const before: Record<string, unknown> = current
      ? {
          ...current,
          clientSecret: undefined,
          allowedDomains: currentDomains,
          roleMapping: current.roleMapping.map(({ value, role }) => ({ value, role })),
        }
      : {};
    const after: Record<string, unknown> = {
      ...input,
      issuer,
      allowedDomains: [...domains].sort(),
      roleMapping: input.roleMapping.map(({ value, role }) => ({ value, role })),
    };
    const changed = Object.keys(input).filter((key) =>
      key === "clientSecret"
        ? input.clientSecret !== undefined
        : JSON.stringify(before[key]) !== JSON.stringify(after[key]),
    );
    // Which settings changed (and the domains, which are public), never the secret.
    await recordAudit(tx, {
      action: "sso.settings_updated",
      metadata: { changed: changed.sort(), enabled: input.enabled, ssoOnly: input.ssoOnly, allowedDomains: domains },
    });
  });
  return getSsoSettings(ctx);
}
