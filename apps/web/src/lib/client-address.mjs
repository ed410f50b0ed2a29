// Which client the web server is serving, for the X-Forwarded-For it hands to the API.
import { isIP } from "node:net";

/**
 * The client's address as this server saw it: the socket's peer, or, when a proxy in front of us
 * is trusted (TRUST_PROXY), the right-most X-Forwarded-For entry, which that proxy appended.
 * Anything a client wrote further left, or an entry that is not an IP address, is ignored.
 */
export function clientAddress(forwardedFor, peer, trustProxy) {
  if (trustProxy && typeof forwardedFor === "string" && forwardedFor.length <= 1024) {
    const last = forwardedFor.split(",").at(-1)?.trim() ?? "";
    if (last.length <= 64 && isIP(last)) return last;
  }
  return peer ?? undefined;
}
