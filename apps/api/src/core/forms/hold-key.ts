import type { OrgContext } from "../context";
import { unauthorized } from "../errors";

/**
 * The key a form page encrypts what it holds offline with (issue 35, docs/forms-api.md
 * "Offline"): the opened form, the answers, files picked and a submission waiting for the network.
 * One per embed session or SMS form request, derived from the service key, never stored, the same
 * at every opening; only the form's own caller (its session, the link's recipient) is given it.
 */
export function formHoldKey(ctx: Pick<OrgContext, "services" | "formGrant" | "actor">): { holdKey: string } {
  const grant = ctx.formGrant;
  if (!grant) throw unauthorized("this call needs a form's session or link");
  return { holdKey: ctx.services.secrets.holdKey("form-hold", `${ctx.actor.type}:${grant.id}`) };
}
