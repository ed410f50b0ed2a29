import type { OrgScope } from "@clinsign/db";
import type { RequestMeta, Services } from "../context";
import { IdentityStore } from "./store/identity-store";

/**
 * What a step before an organization is known works with: the services, the caller's request and
 * the identity store (cross-tenant by nature). Sign-in, the second step, invitation links, single
 * sign-on's start and callback take `(pub, input)`; once a step knows the organization, its
 * tenant work goes through that organization's scope (`pub.identity.scopeOf`).
 */
export interface PublicContext {
  services: Services;
  request: RequestMeta;
  identity: IdentityStore;
}

export const publicContext = (services: Services, request: RequestMeta): PublicContext => ({
  services,
  request,
  identity: IdentityStore.of(services),
});

/**
 * A tenant context's view of the identity wing: the same request, with the identity store joining
 * the organization's scope (and so its transaction). For the member's own account changes, which
 * run in a staff context but touch account rows.
 */
export const publicContextOf = (ctx: { services: Services; request: RequestMeta; scope: OrgScope }): PublicContext => ({
  services: ctx.services,
  request: ctx.request,
  identity: IdentityStore.joining(ctx.scope),
});
