import { z } from "zod";
import { isoDateTime, uuid } from "./common";
import { messageSummary } from "./forms";
import { createdRange, listInput, listPage, rnummerFilter } from "./lists";
import { templateIdentifier } from "./templates";

// ---- staff: the form requests (SMS) section ----------------------------------------------------

/**
 * What staff see of a request, derived from its stored status, its lifetime and its link SMS:
 * `sending` (first attempt not made yet), `sent`, `in_outbox` (kept by the outbox provider: no
 * gateway is configured, so nothing was sent), `sms_retrying` (an attempt failed, more follow),
 * `sms_failed` (the provider gave up), then the recipient's steps `opened`, `verified`, `locked`,
 * `submitted`, and the ends `expired` (the link's lifetime passed) and `cancelled` (by staff).
 */
export const formRequestStates = [
  "sending",
  "sent",
  "in_outbox",
  "sms_retrying",
  "sms_failed",
  "opened",
  "verified",
  "locked",
  "submitted",
  "expired",
  "cancelled",
] as const;
export type FormRequestState = (typeof formRequestStates)[number];

export const formRequestFilters = {
  state: z.enum(formRequestStates).optional(),
  templateIdentifier: templateIdentifier.optional(),
  rnummer: rnummerFilter,
  ...createdRange,
};

/** Staff: the organization's SMS form requests, newest first (the list contract). */
export const listFormRequestsPageInput = listInput(formRequestFilters);
export type ListFormRequestsPageInput = z.input<typeof listFormRequestsPageInput>;

export const formRequestListItem = z.object({
  id: uuid,
  templateIdentifier: z.string(),
  templateTitle: z.string().nullable(),
  rnummer: z.string(),
  phone: z.string(),
  smsFrom: z.string().nullable(),
  emailTo: z.array(z.string()),
  state: z.enum(formRequestStates),
  smsAttempts: z.number().int(),
  smsError: z.string().nullable(),
  submissionId: z.string().nullable(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
});
export type FormRequestListItem = z.infer<typeof formRequestListItem>;
export const formRequestListPage = listPage(formRequestListItem);

export const formRequestRef = z.object({ id: uuid });

/** The SMS a request caused (link, resent links, OTP codes), oldest first, bodies as stored. */
export const formRequestMessages = z.array(messageSummary);

export const resentFormRequestLink = z.object({
  id: uuid,
  messageId: uuid,
  smsStatus: z.enum(["queued", "sent", "failed"]),
  expiresAt: isoDateTime,
});
