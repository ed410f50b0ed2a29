import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { can, signingSessionInput, type StaffProcedure } from "@clinsign/contracts";
import { contextFor, type OrgContext, type Principal, type RequestMeta, type Services } from "../core/context";
import { requestOfSigningPass } from "../core/credentials/signing";
import { AppError, errorMapping, fromZodError } from "../core/errors";
import { authenticateEmbedSession } from "../core/credentials/embed-sessions";
import { assertStorableInput } from "../core/storable-text";
import { publicContext } from "../core/identity/public-context";
import { IdentityStore } from "../core/identity/store/identity-store";
import { resolveStaffSession } from "../core/identity/store/staff-sessions";
import { smsLinkInput } from "@clinsign/contracts";
import {
  authenticateSmsRecipient,
  countIdentificationAttempt,
  findSmsLink,
  smsLinkContext,
} from "../core/credentials/sms-links";
import { authenticateApiToken } from "../core/credentials/api-tokens";

export type { Principal } from "../core/context";

export interface TrpcContext {
  services: Services;
  request: RequestMeta;
  /** Set by the REST adapter, which checks each area's credentials before calling a procedure. */
  principal?: Principal;
  /** From the HTTP request, for callers of /trpc itself. */
  bearerToken?: string;
  sessionCookie?: string;
  /** The pending sign-in cookie (`PENDING_SIGN_IN_COOKIE`) between the password and the second step. */
  pendingSignIn?: string;
  /** A provider's login waiting for an existing account to prove itself (`SSO_LINK_COOKIE`). */
  ssoLink?: string;
  /** The SMS portal's access cookie (`SMS_FORM_ACCESS_COOKIE`), sent only on the portal's paths. */
  smsFormAccess?: string;
  /** The SMS portal's identification cookie (`SMS_FORM_IDENTITY_COOKIE`), for the OTP steps. */
  smsFormIdentity?: string;
  /** An embed sessionId from the `x-session-id` header, for the embedded form's tRPC calls. */
  formSessionId?: string;
  /** Adds a Set-Cookie header to the response. */
  setCookie(cookie: string): void;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const app = error.cause instanceof AppError ? error.cause : undefined;
    // An input the procedure's schema refused: keys as the form fields name them ("" for the whole input).
    const zod = error.cause instanceof ZodError ? fromZodError(error.cause, "") : undefined;
    return {
      ...shape,
      message: error.code === "INTERNAL_SERVER_ERROR" ? "internal error" : shape.message,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        appCode: app?.code ?? (zod ? "invalid_request" : undefined),
        details: app?.details,
        fieldErrors: zod?.fieldErrors ?? app?.fieldErrors,
      },
    };
  },
});

/** Calls one embed session may make per minute; counted by `authenticateEmbedSession`. */
export { FORM_SESSION_CALLS_PER_MINUTE } from "../core/credentials/embed-sessions";

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every procedure's one base middleware (one level, since each level costs every call a context
 * copy):
 * - its input, from /trpc and from the REST door alike (which calls procedures with what it
 *   parsed from body, query and path): text PostgreSQL cannot store is a 400 naming the field,
 *   never a database error;
 * - the service layer's AppError becomes the matching tRPC error, once, for every procedure.
 */
const baseMiddleware = t.middleware(async ({ getRawInput, next }) => {
  try {
    assertStorableInput(await getRawInput());
  } catch (error) {
    throw error instanceof AppError ? toTrpcError(error) : error;
  }
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError)
    return { ...result, error: toTrpcError(result.error.cause) };
  return result;
});

function toTrpcError(app: AppError): TRPCError {
  return new TRPCError({ code: errorMapping[app.code].trpc, message: app.message, cause: app });
}

export const publicProcedure = t.procedure.use(baseMiddleware);

/**
 * A step before an organization is known (sign-in, the second step, invitation links, provider
 * links, a signing link, a public embed's code, `/verify`): `PublicContext` as `ctx.pub`.
 */
export const publicStepProcedure = publicProcedure.use(({ ctx, next }) =>
  next({ ctx: { pub: publicContext(ctx.services, ctx.request) } }),
);

/** The service context of an authenticated principal (also used by the staff download routes). */
export function orgContext(ctx: Pick<TrpcContext, "services" | "request">, principal: Principal): OrgContext {
  return contextFor(ctx.services, principal, ctx.request);
}

/**
 * The permission table (`staffPermissions` in contracts) for a staff principal: 403 `forbidden`
 * when the member's role may not call `procedure` (a tRPC path, or the procedure a staff HTTP route
 * stands for). API tokens, embed sessions and portal recipients are not staff: it does not apply.
 */
export function assertStaffMay(principal: Principal, procedure: StaffProcedure | (string & {})): void {
  if (principal.kind === "staff" && !can(principal.role, procedure)) {
    throw new AppError(
      "forbidden",
      `the ${principal.role} role may not do this; ask an owner or admin of your organization`,
      { procedure },
    );
  }
}

/** A staff member signed into the admin UI, held to the permission table. */
export const staffProcedure = publicProcedure.use(async ({ ctx, path, next }) => {
  const staff =
    ctx.principal?.kind === "staff"
      ? ctx.principal
      : await resolveStaffSession(IdentityStore.of(ctx.services), ctx.sessionCookie).then((s) =>
          s ? { kind: "staff" as const, ...s } : null,
        );
  if (!staff) throw new AppError("unauthorized", "please sign in");
  assertStaffMay(staff, path);
  return next({ ctx: { staff, org: orgContext(ctx, staff) } });
});

/**
 * The console's file routes in the REST route table (rest/console-routes.ts: uploads, PDFs,
 * exports): the session cookie, then the permission-table entry of the procedure the route
 * stands for (an upload is that procedure's change, a download its read).
 */
export async function staffRouteContext(
  ctx: Pick<TrpcContext, "services" | "request" | "sessionCookie">,
  procedure: StaffProcedure,
): Promise<OrgContext> {
  const staff = await resolveStaffSession(IdentityStore.of(ctx.services), ctx.sessionCookie);
  if (!staff) throw new AppError("unauthorized", "please sign in");
  const principal = { kind: "staff" as const, ...staff };
  assertStaffMay(principal, procedure);
  return orgContext(ctx, principal);
}

/**
 * Owners and admins. The table says so (its entry for the procedure); this name only tells the
 * reader of a router, and keeps routers written before the table working.
 */
export const adminProcedure = staffProcedure;

/**
 * The principal of a request: what the REST adapter already checked, else the credentials of a
 * /trpc call in order (an embed session only where `allowFormSession`, a Bearer token, a staff
 * cookie). Unauthorized when none holds.
 */
async function resolvePrincipal(ctx: TrpcContext, allowFormSession: boolean): Promise<Principal> {
  const { db } = ctx.services;
  if (ctx.principal) {
    if ((ctx.principal.kind === "embed_session" || ctx.principal.kind === "sms_recipient") && !allowFormSession) {
      throw new AppError("unauthorized", "this call needs token and orgId, not a sessionId");
    }
    return ctx.principal;
  }
  if (allowFormSession && ctx.formSessionId)
    return { kind: "embed_session", ...(await authenticateEmbedSession(db, ctx.formSessionId)) };
  if (ctx.bearerToken) return { kind: "token", ...(await authenticateApiToken(db, ctx.bearerToken)) };
  const staff = await resolveStaffSession(IdentityStore.of(ctx.services), ctx.sessionCookie);
  if (staff) return { kind: "staff", ...staff };
  throw new AppError("unauthorized", "invalid or missing credentials");
}

/** Anyone acting for an organization: an API token (REST, or Bearer on /trpc) or a staff session. */
export const orgProcedure = publicProcedure.use(async ({ ctx, path, next }) => {
  const principal = await resolvePrincipal(ctx, false);
  assertStaffMay(principal, path);
  return next({ ctx: { org: orgContext(ctx, principal) } });
});

/**
 * The form calls (F3, F7–F10, uploads, events): an embed session (REST `sessionId`, or the
 * `x-session-id` header on /trpc) or anyone `orgProcedure` admits. A session's calls are held to
 * FORM_SESSION_CALLS_PER_MINUTE by `authenticateEmbedSession`, in the statement that looks it up.
 */
export const formProcedure = publicProcedure.use(async ({ ctx, path, next }) => {
  const principal = await resolvePrincipal(ctx, true);
  assertStaffMay(principal, path);
  return next({ ctx: { org: orgContext(ctx, principal) } });
});

// ---- SMS form (C1): the link holder before identification and the SMS recipient after it ----

/**
 * The SMS form's steps before identification (open, resendOtp, checkOtp): the request its link
 * names (404 when none; the step decides about an expired one), and the link holder's context.
 */
export const smsLinkProcedure = publicProcedure.input(smsLinkInput).use(async ({ ctx, input, next }) => {
  const link = await findSmsLink(ctx.services, input.linkToken);
  return next({ ctx: { link, org: smsLinkContext(ctx.services, link, ctx.request) } });
});

/** Identification (rnummer and phone): each attempt from an address is counted before the link is looked up. */
export const smsIdentificationProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    await countIdentificationAttempt(ctx.services, ctx.request.ip);
    return next();
  })
  .input(smsLinkInput)
  .use(async ({ ctx, input, next }) => {
    const link = await findSmsLink(ctx.services, input.linkToken);
    return next({ ctx: { link, org: smsLinkContext(ctx.services, link, ctx.request) } });
  });

/**
 * The recipient of an SMS form request after identification: the access cookie, for the page of
 * the link it names (`authenticateSmsRecipient`, which also paces the calls), as the principal
 * `sms_recipient` of the one factory.
 */
export const smsRecipientProcedure = publicProcedure.input(smsLinkInput).use(async ({ ctx, input, next }) => {
  const recipient = await authenticateSmsRecipient(ctx.services, {
    accessToken: ctx.smsFormAccess,
    linkToken: input.linkToken,
  });
  return next({ ctx: { org: orgContext(ctx, recipient) } });
});

// ---- Signer procedures (issue 22, C2): the signing page after `signing.open` ----------------------

/**
 * The signing page's calls after `signing.open`: the signing pass it keeps (`sessionToken` in the
 * input) resolved, as staff procedures resolve their cookie, to the one request it may act on
 * (core/credentials/signing.ts); `ctx.signer` is the signer's context in that request's
 * organization. 401 once the pass has ended: the page must open the link again. A procedure adds
 * the rest of its input with `.input(…)`.
 */
export const signerProcedure = publicProcedure.input(signingSessionInput).use(async ({ ctx, input, next }) => {
  const grant = await requestOfSigningPass(ctx.services, input.sessionToken);
  if (!grant) throw new AppError("unauthorized", "the signing session has ended; open the signing link again");
  return next({ ctx: { signer: orgContext(ctx, { kind: "signer", ...grant }) } });
});
