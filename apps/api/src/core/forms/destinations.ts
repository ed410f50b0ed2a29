import type { OrgContext } from "../context";
import { AppError } from "../errors";
import { actsForOrganization } from "../permissions";

/** Where a form's answers may be sent besides the organization's own records. */
export interface AnswerDestinations {
  webhookUrl?: string;
  emailTo?: string[];
}

/**
 * The one rule for "may this actor choose where a form's answers go", for embed sessions
 * (`config.webhookUrl`, `config.emailTo`) and SMS form requests (`emailTo`): a webhook or an
 * address receives every answer of the form, so naming one of one's own choosing is an
 * administrator's decision. Owners, admins and API tokens (organization credentials) may name
 * any; staff with the `staff` role only the organization's configured defaults: one of its
 * default webhook URLs, and no e-mail address (the organization has no default addresses).
 * `fieldPrefix` names the fields as the caller's input does (`config.` for sessions).
 */
export async function assertMayChooseDestinations(
  ctx: OrgContext,
  destinations: AnswerDestinations,
  fieldPrefix = "",
): Promise<void> {
  if (actsForOrganization(ctx.actor)) return;
  if (destinations.emailTo !== undefined && destinations.emailTo.length > 0) {
    throw new AppError(
      "forbidden",
      "only owners and admins may choose e-mail addresses that receive a form's answers",
      { field: `${fieldPrefix}emailTo` },
    );
  }
  if (destinations.webhookUrl === undefined) return;
  const defaults = await defaultWebhookUrls(ctx);
  if (defaults.includes(destinations.webhookUrl)) return;
  throw new AppError(
    "forbidden",
    "only owners and admins may send a form's answers to a URL other than the organization's default webhook URLs",
    {
      field: `${fieldPrefix}webhookUrl`,
    },
  );
}

/** The organization's default webhook URLs (settings), possibly none. */
export async function defaultWebhookUrls(ctx: OrgContext): Promise<string[]> {
  return (await ctx.scope.organization()).webhookUrls;
}
