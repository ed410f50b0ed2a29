import { roles, type Role } from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";
import { describeApiError, type ApiError } from "../../trpc/errors";

/** A refusal of the Users page in words: the rules the service keeps beyond the table. */
export function describeUsersError(error: ApiError, t: Dictionary): string {
  const reason = error.details.reason;
  if (reason === "last_owner") return t.users.lastOwner;
  if (reason === "owner_required") return t.users.ownerRequired;
  if (reason === "already_member") return t.users.alreadyMember;
  return describeApiError(error, t);
}

/** Roles the signed-in member may hand out: only owners make owners. */
export function assignableRoles(me: Role): readonly Role[] {
  return me === "owner" ? roles : roles.filter((role) => role !== "owner");
}
