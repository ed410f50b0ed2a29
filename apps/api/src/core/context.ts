import type { Logger } from "pino";
import {
  OrgScope,
  type ActorType,
  type Database,
  type Db,
  type FormSessionConfig,
  type MembershipRole,
} from "@clinsign/db";
import type { Config } from "../env";
import type { SecretBox } from "./crypto";
import type { FileStorage } from "./files/storage";

/** Where a request came from; written into audit entries. */
export interface RequestMeta {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
}

export interface Actor {
  type: ActorType;
  id: string | null;
  /** A staff member's role in the organization (actor type `user` only). */
  role?: MembershipRole;
}

/** Process-wide dependencies, built once at start. */
export interface Services {
  config: Config;
  database: Database;
  db: Db;
  secrets: SecretBox;
  /** Private files: uploaded PDFs, signed results, form attachments (STORAGE=fs|db). */
  storage: FileStorage;
  log: Logger;
  /** True while completed documents are sealed with a generated development certificate. */
  devCertificate: boolean;
  /** The process's job runner, when one runs here: `wake()` starts a pass now instead of at the next poll. */
  jobs?: { wake(): void };
  /** The time that decides when requests expire and reminders fall due; tests set their own (see `nowOf`). */
  clock?: () => Date;
}

/** Now, by the services' clock: the wall clock unless a test set another. */
export const nowOf = (services: Pick<Services, "clock">): Date => services.clock?.() ?? new Date();

/** A staff member signed into the console, once their staff session cookie was resolved. */
export interface StaffPrincipal {
  /** The staff session (row id, never its secret) the request came with. */
  sessionId: string;
  /** When that staff session was opened (a sign-in): a step-up by `fresh_sign_in` needs it recent. */
  signedInAt: Date;
  userId: string;
  organizationId: string;
  role: MembershipRole;
  email: string;
  name: string | null;
  organizationName: string;
}

/** Who an API token speaks for, once its hash was found. */
export interface TokenPrincipal {
  tokenId: string;
  organizationId: string;
}

/**
 * Who a call acts as, once its credential was checked. Every caller is one of these, and
 * `contextFor` is the one place that turns it into the services' context.
 */
export type Principal =
  /** A staff member signed into the console (staff session cookie). */
  | ({ kind: "staff" } & StaffPrincipal)
  /** An API token (REST, or Bearer on /trpc). */
  | ({ kind: "token" } & TokenPrincipal)
  /** An embed session (`sessionId`): one template of one organization, for the form calls only. */
  | { kind: "embed_session"; organizationId: string; embedSession: EmbedSession }
  /** The recipient of an SMS form request, after identification (and OTP): that request's form only. */
  | {
      kind: "sms_recipient";
      organizationId: string;
      formRequestId: string;
      templateIdentifier: string;
      accessExpiresAt: Date;
    }
  /** A patient signing one signature request (signing link, ticket or signing pass). */
  | { kind: "signer"; organizationId: string; signatureRequestId: string; signerId?: string | null }
  /** The service on its own behalf: CLI, seeding, jobs. */
  | { kind: "system"; organizationId: string };

/**
 * What every tenant service receives: the organization's data scope (there is no other way to
 * reach tenant tables), who acts, and from where.
 */
export interface OrgContext {
  services: Services;
  scope: OrgScope;
  actor: Actor;
  request: RequestMeta;
  /** Set for an embed session or an SMS recipient: the one form the caller may fill. */
  formGrant?: FormGrant;
  /**
   * Several signers (issue 20): the `signature_signers` row a signer context acts as, when its
   * credential named one (a link signer's own link). Absent: the request's patient.
   */
  signerId?: string;
}

/** An embed session as the services see it (the sessionId itself is never kept). */
export interface EmbedSession {
  id: string;
  templateIdentifier: string;
  config: FormSessionConfig;
  expiresAt: Date;
  /** A public embed's visitor (anonymous): the embed the session was started from. */
  publicEmbedId?: string;
}

/**
 * The one form a caller may fill: its embed session (with the session's config), or the SMS form
 * request it was sent (`id` is the request's; the config pins the request's own draft).
 */
export type FormGrant = EmbedSession;

/** The actor an audit entry names for a principal. */
function actorOf(principal: Principal): Actor {
  switch (principal.kind) {
    case "staff":
      return { type: "user", id: principal.userId, role: principal.role };
    case "token":
      return { type: "api_key", id: principal.tokenId };
    case "embed_session":
      return { type: "embed_session", id: principal.embedSession.id };
    case "sms_recipient":
      return { type: "sms_recipient", id: principal.formRequestId };
    case "signer":
      return { type: "signer", id: principal.signatureRequestId };
    case "system":
      return { type: "system", id: null };
  }
}

function formGrantOf(principal: Principal): FormGrant | undefined {
  if (principal.kind === "embed_session") return principal.embedSession;
  if (principal.kind === "sms_recipient")
    return {
      id: principal.formRequestId,
      templateIdentifier: principal.templateIdentifier,
      config: { draftKey: smsFormDraftKey(principal.formRequestId) },
      expiresAt: principal.accessExpiresAt,
    };
  return undefined;
}

/**
 * The draft of an SMS form request: a reserved key (`form-request:`) no caller may name, so only
 * the request's recipient reaches it.
 */
export const smsFormDraftKey = (formRequestId: string) => `form-request:${formRequestId}`;

/** The one factory of service contexts, for every kind of caller. */
export function contextFor(services: Services, principal: Principal, request: RequestMeta): OrgContext {
  const formGrant = formGrantOf(principal);
  return {
    services,
    scope: new OrgScope(services.db, principal.organizationId),
    actor: actorOf(principal),
    request,
    ...(formGrant && { formGrant }),
    ...(principal.kind === "signer" && principal.signerId && { signerId: principal.signerId }),
  };
}

/** The same context bound to an open transaction (or the current one). */
export function inTransaction<R>(ctx: OrgContext, work: (tx: OrgContext) => Promise<R>): Promise<R> {
  return ctx.scope.transaction((scope) => work({ ...ctx, scope }));
}

/**
 * Runs `effect` once the outermost transaction of `ctx` has committed (now, outside one): webhook
 * deliveries, job wake-ups, the inline seal, OTP texts. The change stands whatever the effect
 * does, so its failure is logged here, never thrown into the caller's answer; anything that must
 * not be lost is a job row written inside the transaction, which the effect only hurries along.
 */
export function afterCommit(ctx: OrgContext, name: string, effect: () => Promise<unknown> | void): Promise<void> {
  return ctx.scope.afterCommit(async () => {
    try {
      await effect();
    } catch (error) {
      ctx.services.log.error(
        { err: error, effect: name, requestId: ctx.request.requestId },
        "after-commit effect failed",
      );
    }
  });
}

/** A context for work the service does on its own behalf (CLI, seeding, jobs). */
export function systemContext(services: Services, organizationId: string, requestId = "system"): OrgContext {
  return contextFor(services, { kind: "system", organizationId }, { requestId, ip: null, userAgent: null });
}
