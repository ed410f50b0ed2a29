import type { SigningState } from "@clinsign/contracts";
import type { ApiError } from "../../trpc/errors";

/**
 * A 409 from sign/decline says the request left the signable state meanwhile (it expired, was
 * withdrawn as a draft, or was signed or declined in another tab): the screen that now applies.
 */
export function closedState(error: ApiError): SigningState | null {
  if (error.code !== "CONFLICT") return null;
  if (error.details.reason === "request_unavailable") return "unavailable";
  const status = error.details.status;
  return status === "expired" || status === "declined" || status === "sealing" || status === "completed"
    ? status
    : null;
}
