"use client";

import { can, type Me, type StaffProcedure } from "@clinsign/contracts";
import { createContext, useContext } from "react";

export const SessionContext = createContext<Me | null>(null);

/** The signed-in staff member and their organization; only inside the admin shell. */
export function useSession(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error("useSession must be used inside the admin shell");
  return me;
}

/**
 * Whether the signed-in member's role may call a procedure: the API's permission table
 * (`staffPermissions`), so the console shows exactly the buttons the API would accept.
 */
export function useCan(): (procedure: StaffProcedure) => boolean {
  const me = useSession();
  return (procedure) => can(me.role, procedure);
}

/**
 * Owners and admins, for the rules inside a procedure that the table cannot say (who chooses where
 * answers go, who sees the network data of audit entries): `actsForOrganization` on the server.
 */
export function canAdminister(me: Me): boolean {
  return me.role === "owner" || me.role === "admin";
}
