import { notFound } from "next/navigation";
import { renderLoginPage } from "../page";

export { generateMetadata } from "../page";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An organization's login URL: the same page, offering the organization's single sign-on. */
export default async function OrganizationLoginPage({
  params,
  searchParams,
}: {
  params: Promise<{ organization: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { organization } = await params;
  if (!UUID.test(organization)) notFound();
  return renderLoginPage(await searchParams, organization.toLowerCase());
}
