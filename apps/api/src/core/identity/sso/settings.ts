import type { SaveSsoSettingsInput, SsoSettings, VerifySsoDomainResult } from "@clinsign/contracts";
import { and, asc, eq, inArray, memberships, not, organizationSso, ssoDomains, users } from "@clinsign/db";
import { recordAudit } from "../../audit/audit";
import { settingChanges } from "../../audit/changes";
import { inTransaction, type OrgContext } from "../../context";
import { randomSecret } from "../../crypto";
import type { StaffSessionRef } from "../account-security";
import { publicContextOf } from "../public-context";
import { confirmStepUp } from "../step-up";
import { domainProvenElsewhere } from "../store/sso";
import { domainProofRecord, isPublicMailDomain, lookupDomainProof } from "./domain-proof";
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
  const proof = (d: (typeof domains)[number]) => domainProofRecord(d.domain, d.verificationToken);
  return {
    configured: Boolean(config),
    enabled: config?.enabled ?? false,
    displayName: config?.displayName ?? "",
    issuer: config?.issuer ?? "",
    clientId: config?.clientId ?? "",
    hasClientSecret: Boolean(config?.clientSecretEnc),
    allowedDomains: domains.map((d) => d.domain),
    domains: domains.map((d) => ({
      domain: d.domain,
      verified: d.verifiedAt !== null,
      verifiedAt: d.verifiedAt?.toISOString() ?? null,
      txtName: proof(d).name,
      txtValue: proof(d).value,
    })),
    roleClaim: config?.roleClaim ?? "groups",
    // Single sign-on grants admin at most (a stored owner mapping is never applied: sign-in.ts).
    roleMapping: (config?.roleMapping ?? []).flatMap((m) =>
      m.role === "owner" ? [] : [{ value: m.value, role: m.role }],
    ),
    ssoOnly: config?.ssoOnly ?? false,
    breakGlassUserId: config?.breakGlassUserId ?? null,
    redirectUri: ssoRedirectUri(ctx.services),
    loginUrl: `${ctx.services.config.publicWebUrl}/login/${ctx.scope.organizationId}`,
    owners: await owners(ctx),
    updatedAt: config?.updatedAt.toISOString() ?? null,
  };
}

/** Who may sign in and as what is the owners' to decide: an admin could otherwise grant themselves anything through a provider they run. */
function requireOwner(ctx: OrgContext): void {
  if (ctx.actor.type !== "user" || ctx.actor.role !== "owner")
    throw new AppError("forbidden", "only an owner may change single sign-on", { reason: "owner_required" });
}

/**
 * Saves the provider settings (owners, with a step-up in the same call). An enabled provider must
 * answer discovery with the same issuer; public mail domains cannot be claimed; a claimed domain
 * counts only once proven (`verifySsoDomain`), so claiming one blocks nobody. SSO-only needs a
 * break-glass owner, so the organization can never lock itself out. Audited with each setting that
 * changed, before and after; the client secret only as changed.
 */
export async function saveSsoSettings(
  ctx: OrgContext,
  input: SaveSsoSettingsInput & { staffSession: StaffSessionRef },
): Promise<SsoSettings> {
  requireOwner(ctx);
  const publicDomain = input.allowedDomains.find(isPublicMailDomain);
  if (publicDomain)
    throw new AppError("invalid_request", `${publicDomain} is a public mail domain: anyone can have an address there`, {
      field: "allowedDomains",
      reason: "public_domain",
    });
  await confirmStepUp(publicContextOf(ctx), input.staffSession, input.stepUp);
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
    // Claims that stay keep their token and proof; new ones get a token to publish.
    await tx.scope.delete(ssoDomains, not(inArray(ssoDomains.domain, domains)));
    const added = domains.filter((domain) => !currentDomains.includes(domain));
    if (added.length)
      await tx.scope.insert(
        ssoDomains,
        added.map((domain) => ({ domain, verificationToken: randomSecret(24) })),
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
    const given = Object.fromEntries(
      Object.keys(input)
        .filter((key) => key !== "stepUp" && key !== "staffSession" && key !== "clientSecret")
        .map((key) => [key, after[key]]),
    );
    // What changed, from what to what (and the domains, which are public); the secret only as changed.
    const diff = settingChanges(before, given, { clientSecret: input.clientSecret !== undefined });
    await recordAudit(tx, {
      action: "sso.settings_updated",
      metadata: { ...diff, enabled: input.enabled, ssoOnly: input.ssoOnly, allowedDomains: domains },
    });
  });
  return getSsoSettings(ctx);
}

/**
 * Looks up a claimed domain's TXT record now (owners) and marks the claim proven when it carries
 * the claim's token. Only one organization can have proven a domain: another's proof is a
 * conflict, reported as `claimed`. Audited when the proof is made.
 */
export async function verifySsoDomain(ctx: OrgContext, input: { domain: string }): Promise<VerifySsoDomainResult> {
  requireOwner(ctx);
  const [claim] = await ctx.scope.select(ssoDomains, eq(ssoDomains.domain, input.domain));
  if (!claim) throw new AppError("not_found", "this domain is not claimed for single sign-on", { field: "domain" });
  const answer = (verified: boolean, problem: VerifySsoDomainResult["problem"]) => ({
    domain: claim.domain,
    verified,
    problem,
  });
  if (claim.verifiedAt) return answer(true, null);
  const found = await lookupDomainProof(ctx.services.config.dnsResolvers, claim.domain, claim.verificationToken);
  if (found !== "found") return answer(false, found);
  if (await domainProvenElsewhere(publicContextOf(ctx).identity, ctx.scope.organizationId, claim.domain))
    return answer(false, "claimed");
  try {
    await inTransaction(ctx, async (tx) => {
      await tx.scope.update(ssoDomains, { verifiedAt: new Date() }, and(eq(ssoDomains.domain, claim.domain)));
      await recordAudit(tx, { action: "sso.domain_verified", metadata: { domain: claim.domain } });
    });
  } catch (error) {
    // Another organization proved it at the same moment (the unique index of proven domains).
    if (String((error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code) === "23505")
      return answer(false, "claimed");
    throw error;
  }
  return answer(true, null);
}
