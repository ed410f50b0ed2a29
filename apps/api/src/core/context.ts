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
}

/**
 * What every tenant service receives: the organization's data scope (there is no other way to
 * reach tenant tables), who acts, and from where.
 */
export interface OrgContext {
  services: Services;
  scope: OrgScope;
  actor: Actor;
  request: RequestMeta;
  /** Set when the caller authenticated with an embed sessionId: limits it to one template. */
  session?: FormSession;
}

/** An embed session as the services see it (the sessionId itself is never kept). */
export interface FormSession {
  id: string;
  templateIdentifier: string;
  config: FormSessionConfig;
  expiresAt: Date;
}

/** The same context bound to an open transaction. */
export function inTransaction<R>(ctx: OrgContext, work: (tx: OrgContext) => Promise<R>): Promise<R> {
  return ctx.scope.transaction((scope) => work({ ...ctx, scope }));
}

/** A context for work the service does on its own behalf (CLI, seeding, jobs). */
export function systemContext(services: Services, organizationId: string, requestId = "system"): OrgContext {
  return {
    services,
    scope: new OrgScope(services.db, organizationId),
    actor: { type: "system", id: null },
    request: { requestId, ip: null, userAgent: null },
  };
}
