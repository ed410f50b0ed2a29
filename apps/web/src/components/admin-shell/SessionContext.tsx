"use client";

import type { Me } from "@clinsign/contracts";
import { createContext, useContext } from "react";

export const SessionContext = createContext<Me | null>(null);

/** The signed-in staff member and their organization; only inside the admin shell. */
export function useSession(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error("useSession must be used inside the admin shell");
  return me;
}

export function canAdminister(me: Me): boolean {
  return me.role === "owner" || me.role === "admin";
}
