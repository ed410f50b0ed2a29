import { Resolver } from "node:dns/promises";

/**
 * The DNS proof that an organization controls an e-mail domain before its single sign-on may
 * claim the domain's addresses: the organization publishes a TXT record with a token we gave it.
 * A context-free library: no request context, no database; the caller keeps the token.
 */

export const DOMAIN_PROOF_PREFIX = "_clinsign-challenge";
const PROOF_VALUE_PREFIX = "clinsign-domain-verification=";

/** Domains compare in lower case and without the root's trailing dot (`Klinik.Example.` is `klinik.example`). */
function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

/** The TXT record the organization publishes: a name under its domain, and the value carrying the token. */
export function domainProofRecord(domain: string, token: string): { name: string; value: string } {
  return { name: `${DOMAIN_PROOF_PREFIX}.${normalizeDomain(domain)}`, value: `${PROOF_VALUE_PREFIX}${token}` };
}

// Anyone may hold an address at these providers: a claim on one would send strangers' sign-ins to
// one organization's identity provider, so none may be claimed, whatever DNS says.
const PUBLIC_MAIL_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "outlook.de",
  "hotmail.com",
  "hotmail.de",
  "live.com",
  "live.de",
  "msn.com",
  "yahoo.com",
  "yahoo.de",
  "ymail.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "gmx.de",
  "gmx.net",
  "gmx.at",
  "gmx.ch",
  "gmx.com",
  "gmx.fr",
  "web.de",
  "t-online.de",
  "freenet.de",
  "arcor.de",
  "mail.de",
  "posteo.de",
  "mailbox.org",
  "proton.me",
  "protonmail.com",
  "pm.me",
  "tutanota.com",
  "tuta.io",
  "yandex.ru",
  "yandex.com",
  "mail.ru",
  "qq.com",
  "163.com",
  "126.com",
  "zoho.com",
  "orange.fr",
  "free.fr",
  "libero.it",
  "bluewin.ch",
  "hushmail.com",
  "fastmail.com",
]);

/** True for a public or free mail provider's domain (exact match: a provider's subdomains are not listed). */
export function isPublicMailDomain(domain: string): boolean {
  return PUBLIC_MAIL_DOMAINS.has(normalizeDomain(domain));
}

export type DomainProofResult = "found" | "not_found" | "dns_error";

/**
 * Looks up the proof record of `domain` and compares each TXT record (its chunks joined) with the
 * expected value. `resolvers` are `ip[:port]` name servers (DNS_RESOLVERS); undefined: the
 * system's. "not_found" only when DNS answered that there is no such record or no matching one;
 * a failure to get an answer is "dns_error", so the caller can tell "try again later" from "wrong".
 * Logs nothing: the caller decides what an attempt records.
 */
export async function lookupDomainProof(
  resolvers: string[] | undefined,
  domain: string,
  token: string,
  timeoutMs = 5000,
): Promise<DomainProofResult> {
  const { name, value } = domainProofRecord(domain, token);
  try {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (resolvers) resolver.setServers(resolvers);
    // A TXT record longer than 255 bytes arrives as several character-strings; they form one value.
    const records = await resolver.resolveTxt(name);
    return records.some((chunks) => chunks.join("").trim() === value) ? "found" : "not_found";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOTFOUND" || code === "ENODATA" ? "not_found" : "dns_error";
  }
}
