import { count, organizations } from "@clinsign/db";
import { systemContext, type Services } from "../context";
import { randomSecret } from "../crypto";
import { createOrganization } from "./organizations";
import { createApiToken } from "../tokens/tokens";
import { createStaffUser } from "../identity/store/accounts";

export interface DemoCredentials {
  organizationId: string;
  adminEmail: string;
  adminPassword: string;
  apiToken: string;
}

/** On a database with no organization, creates the demo organization, its admin and a token. */
export async function seedDemoIfEmpty(services: Services): Promise<DemoCredentials | null> {
  const [row] = await services.db.select({ n: count() }).from(organizations);
  if ((row?.n ?? 0) > 0) return null;
  const seed = services.config.seedAdmin;
  const adminEmail = seed?.email ?? "admin@demo.clinic";
  const adminPassword = seed?.password ?? randomSecret(12);
  const org = await createOrganization(services, { name: "Demo Clinic" });
  await createStaffUser(services, {
    organizationId: org.id,
    email: adminEmail,
    password: adminPassword,
    role: "owner",
    name: "Demo Admin",
  });
  const token = await createApiToken(systemContext(services, org.id), { name: "Demo token" });
  return { organizationId: org.id, adminEmail, adminPassword, apiToken: token.token };
}
