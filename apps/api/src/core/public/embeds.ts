import type { PublicEmbedInfo, StartedVisitorSession } from "@clinsign/contracts";
import { systemContext, type OrgContext } from "../context";
import { countVisitorStart, findPublicEmbedByCode } from "../credentials/embed-sessions";
import { startVisitor, VISITOR_START_WINDOW_SECONDS, VISITOR_STARTS_PER_WINDOW } from "../embed-sessions/public-embeds";
import { notFound } from "../errors";
import type { PublicContext } from "../identity/public-context";

/**
 * For the form page and the web server's CSP: whether the embed is on and which origins may
 * frame it. An unknown code is 404; a turned-off embed still names its origins, so the page can
 * tell the visitor in the frame that the form is not available.
 */
export async function describePublicEmbed(pub: PublicContext, input: { code: string }): Promise<PublicEmbedInfo> {
  const row = await findPublicEmbedByCode(pub.services, input.code);
  if (!row) throw notFound("form");
  return { enabled: row.enabled, allowedOrigins: row.allowedOrigins };
}

/**
 * A visitor's browser starts its own embed session from the public code (`startVisitor` in the
 * embed's organization). Turned off or unknown: 404; more than `VISITOR_STARTS_PER_WINDOW` starts
 * from one address: 429.
 */
export async function startVisitorSession(pub: PublicContext, input: { code: string }): Promise<StartedVisitorSession> {
  const embed = await findPublicEmbedByCode(pub.services, input.code);
  if (!embed || !embed.enabled) throw notFound("form");
  await countVisitorStart(pub.services, embed.id, pub.request.ip, {
    limit: VISITOR_STARTS_PER_WINDOW,
    windowSeconds: VISITOR_START_WINDOW_SECONDS,
  });
  const visitor: OrgContext = {
    ...systemContext(pub.services, embed.organizationId, pub.request.requestId),
    actor: { type: "embed_session", id: null },
    request: pub.request,
  };
  return startVisitor(visitor, embed);
}
