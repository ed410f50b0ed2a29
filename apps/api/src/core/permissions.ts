import type { Actor } from "./context";

/**
 * Whether an actor speaks for the organization as a whole: owners and admins, API tokens (they
 * are organization credentials, as the REST paths use them) and the service itself (CLI, seed,
 * jobs). Staff with the `staff` role, embed sessions and portal recipients do not.
 *
 * The one rule behind every "owners and admins only" decision a service makes itself: who may
 * choose where answers go (forms/destinations.ts), who may change branding, who sees the network
 * data of audit entries.
 */
export function actsForOrganization(actor: Actor): boolean {
  switch (actor.type) {
    case "api_key":
    case "system":
      return true;
    case "user":
      return actor.role === "owner" || actor.role === "admin";
    default:
      return false;
  }
}
