import { z } from "zod";
import { role } from "./auth";
import { isoDateTime } from "./common";
import { listInput, listPage } from "./lists";

/** Admins: the organization's members (active and deactivated), newest first by default. */
export const listUsersInput = listInput({});

export const staffUserItem = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role,
  /** Set while the member is deactivated: their sign-ins and sessions are refused. */
  deactivatedAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
});
export type StaffUserItem = z.infer<typeof staffUserItem>;
export const staffUserPage = listPage(staffUserItem);

/** Admins: invitations not yet accepted, expired ones included (they say so). */
export const listInvitesInput = listInput({});

export const staffInviteItem = z.object({
  id: z.uuid(),
  email: z.string(),
  role,
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
  expired: z.boolean(),
});
export type StaffInviteItem = z.infer<typeof staffInviteItem>;
export const staffInvitePage = listPage(staffInviteItem);

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .pipe(z.email({ message: "enter a valid e-mail address" }));

export const inviteUserInput = z.object({ email, role });

/**
 * An invitation made: where its link went. `outbox`: this installation has no mail server, so no
 * e-mail left; the link is in `link`, shown this once to the member who invited (audited), to be
 * handed over in person. `email`: the link went by e-mail and `link` is null.
 */
export const inviteResult = z.object({
  id: z.uuid(),
  expiresAt: isoDateTime,
  delivery: z.enum(["email", "outbox"]),
  link: z.string().nullable(),
});
export type InviteResult = z.infer<typeof inviteResult>;
export const inviteRef = z.object({ id: z.uuid({ message: "must be a UUID" }) });
export const userRef = z.object({ userId: z.uuid({ message: "must be a UUID" }) });
export const changeRoleInput = z.object({ userId: z.uuid({ message: "must be a UUID" }), role });

/** The invite link's secret (from the link's fragment). */
const inviteToken = z
  .string()
  .min(20, { message: "is not a valid invitation" })
  .max(200, { message: "is not a valid invitation" });
export const describeInviteInput = z.object({ token: inviteToken });
export const inviteDescription = z.object({
  organization: z.string(),
  email: z.string(),
  role,
  expiresAt: isoDateTime,
  /**
   * The address already has an account (of another organization): accept with its password, then
   * its own second factor, as at any sign-in.
   */
  existingAccount: z.boolean(),
  /** The organization signs in with single sign-on only: the invitation cannot be accepted with a password. */
  ssoOnly: z.boolean(),
});
export type InviteDescription = z.infer<typeof inviteDescription>;

export const acceptInviteInput = z.object({
  token: inviteToken,
  name: z.string().trim().min(1, { message: "is required" }).max(200, { message: "must be at most 200 characters" }),
  password: z
    .string()
    .min(8, { message: "must be at least 8 characters" })
    .max(1024, { message: "must be at most 1024 characters" }),
});

/** One of the signed-in user's own staff sessions. */
export const staffSessionItem = z.object({
  id: z.uuid(),
  /** From the user agent, e.g. "Firefox on Windows"; null when the browser sent none. */
  device: z.string().nullable(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  createdAt: isoDateTime,
  lastSeenAt: isoDateTime,
  current: z.boolean(),
});
export type StaffSessionItem = z.infer<typeof staffSessionItem>;
export const staffSessionList = z.object({ items: z.array(staffSessionItem) });
export const endSessionInput = z.object({ id: z.uuid({ message: "must be a UUID" }) });
