import { AppError } from "../errors";
import type { FhirJson, OutcomeIssue } from "../fhir-mapping/resources";

/**
 * A searchset Bundle: the page's resources, `self` and (when more follow) `next` links that
 * repeat the search with the keyset cursor `_page`, and an OperationOutcome entry (search mode
 * `outcome`) naming what the export of these resources could not map exactly.
 */
export function searchBundle(
  apiUrl: string,
  type: string,
  params: Record<string, unknown>,
  resources: FhirJson[],
  nextCursor: string | null,
  issues: OutcomeIssue[] = [],
): FhirJson {
  const link = (cursor: string | undefined) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (name === "_page" || name === "_format" || value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
    }
    if (cursor) query.set("_page", cursor);
    return `${apiUrl}/fhir/r4/${type}?${query.toString()}`;
  };
  const entry: FhirJson[] = resources.map((resource) => ({
    fullUrl: `${apiUrl}/fhir/r4/${type}/${resource.id as string}`,
    resource,
    search: { mode: "match" },
  }));
  if (issues.length)
    entry.push({ resource: { resourceType: "OperationOutcome", issue: issues }, search: { mode: "outcome" } });
  return {
    resourceType: "Bundle",
    type: "searchset",
    link: [
      { relation: "self", url: link(params._page as string | undefined) },
      ...(nextCursor ? [{ relation: "next", url: link(nextCursor) }] : []),
    ],
    ...(entry.length && { entry }),
  };
}

/** `[system|]value` of a token parameter; `system` must be the one we write, when given. */
export function tokenValue(param: string, expectedSystem: string, name: string): string {
  const bar = param.indexOf("|");
  if (bar < 0) return param;
  const system = param.slice(0, bar);
  if (system && system !== expectedSystem)
    throw new AppError("invalid_request", `${name}: the identifier system must be ${expectedSystem}`, { field: name });
  const value = param.slice(bar + 1);
  if (!value) throw new AppError("invalid_request", `${name}: the identifier value is missing`, { field: name });
  return value;
}

/** The instant where a date of that precision begins, and where the next one begins. */
function bounds(value: string): [Date, Date] {
  if (value.includes("T")) {
    const at = new Date(value);
    const next = new Date(at.getTime() + (/:\d{2}:\d{2}/.test(value) ? 1000 : 60_000));
    return [at, next];
  }
  const [y, m, d] = value.split("-").map(Number) as [number, number?, number?];
  const start = new Date(Date.UTC(y, (m ?? 1) - 1, d ?? 1));
  const end =
    d !== undefined
      ? new Date(Date.UTC(y, m! - 1, d + 1))
      : m !== undefined
        ? new Date(Date.UTC(y, m, 1))
        : new Date(Date.UTC(y + 1, 0, 1));
  return [start, end];
}

/**
 * Date search parameters (`authored=ge2026-01-01&authored=lt2026-02-01`) as a half-open range
 * [from, to). Dates without a time are days in UTC.
 */
export function dateRange(params: string[] | undefined, name: string): { from?: string; to?: string } {
  let from: Date | undefined;
  let to: Date | undefined;
  for (const param of params ?? []) {
    const prefix = /^(eq|gt|ge|lt|le)/.exec(param)?.[1] ?? "eq";
    const [start, end] = bounds(param.replace(/^(eq|gt|ge|lt|le)/, ""));
    if (Number.isNaN(start.getTime()))
      throw new AppError("invalid_request", `${name}: ${param} is not a date`, { field: name });
    const later = (a: Date | undefined, b: Date) => (a && a > b ? a : b);
    const earlier = (a: Date | undefined, b: Date) => (a && a < b ? a : b);
    if (prefix === "eq" || prefix === "ge") from = later(from, start);
    if (prefix === "gt") from = later(from, end);
    if (prefix === "eq" || prefix === "le") to = earlier(to, end);
    if (prefix === "lt") to = earlier(to, start);
  }
  return { from: from?.toISOString(), to: to?.toISOString() };
}
