/**
 * Makes the organizations of an e2e run before the service starts (playwright.config.ts runs this
 * first in its webServer command). No request creates an organization and PGlite admits one
 * process per data folder, so this does what the CLI's `org create` and `user create` do, with
 * the same services, while the folder is still free: the demo organization exactly as the
 * server's `--seed-demo` makes it (the server then finds organizations and seeds nothing), and
 * the ones of e2e/tests/organizations.ts. A data folder that already has organizations is left
 * as it is.
 */
import { createStaffUser } from "../apps/api/src/core/identity/store/accounts";
import { seedDemoIfEmpty } from "../apps/api/src/core/provisioning/demo";
import { createOrganization } from "../apps/api/src/core/provisioning/organizations";
import { loadConfig } from "../apps/api/src/env";
import { createLogger, createServices } from "../apps/api/src/services";
import { DEMO_MEMBER_AT_NORTH, NORTH_CLINIC } from "./tests/organizations";

const config = loadConfig();
const services = await createServices(config, createLogger({ logLevel: "warn" }));
try {
  const demo = await seedDemoIfEmpty(services);
  if (demo) {
    await createStaffUser(services, { organizationId: demo.organizationId, role: "staff", ...DEMO_MEMBER_AT_NORTH });
    const north = await createOrganization(services, { name: NORTH_CLINIC.name });
    for (const [role, account] of [
      ["owner", NORTH_CLINIC.owner],
      ["admin", NORTH_CLINIC.admin],
      ["staff", NORTH_CLINIC.member],
    ] as const)
      await createStaffUser(services, { organizationId: north.id, role, ...account });
    process.stdout.write(`e2e: provisioned the demo organization and ${NORTH_CLINIC.name}\n`);
  }
} finally {
  await services.database.close();
}
