import { organizations } from "@clinsign/db";
import type { Services } from "../context";

/**
 * Creates an organization: the tenant itself, so there is no organization to scope it by yet.
 * Called by the CLI (`org create`), the demo seed and the test harness, never by a request.
 */
export async function createOrganization(services: Services, input: { name: string }): Promise<{ id: string }> {
  const [row] = await services.db
    .insert(organizations)
    .values({ name: input.name })
    .returning({ id: organizations.id });
  return row!;
}
