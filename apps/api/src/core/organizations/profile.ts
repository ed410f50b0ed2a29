import type { OrgContext } from "../context";

/** What patient-facing texts need of the organization: who is asking, in which language, from which country. */
export interface OrganizationProfile {
  name: string;
  locale: "de" | "en";
  /** ISO 3166 country whose national phone numbers ("0170 …") are accepted. */
  phoneCountry: string;
}

/** The context's organization as patient pages and messages name it. */
export async function organizationProfile(ctx: Pick<OrgContext, "scope">): Promise<OrganizationProfile> {
  const org = await ctx.scope.organization();
  return { name: org.name, locale: org.locale === "en" ? "en" : "de", phoneCountry: org.phoneCountry };
}

/** The organization's name, for the header of its patient pages. */
export async function organizationNameOf(ctx: Pick<OrgContext, "scope">): Promise<string> {
  return (await organizationProfile(ctx)).name;
}
