/**
 * What a FHIR server's refusal says, as staff read it: the OperationOutcome's issues (severity,
 * code, diagnostics and where), or the status alone when the body is none. Bounded, so a large or
 * hostile answer cannot fill the log.
 */
export function outcomeSummary(status: number, body: Buffer): string {
  const issues = issuesOf(body);
  const text = issues.length ? `HTTP ${status}: ${issues.join("; ")}` : `HTTP ${status}`;
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}

interface Issue {
  severity?: unknown;
  code?: unknown;
  diagnostics?: unknown;
  details?: { text?: unknown };
  expression?: unknown;
}

function issuesOf(body: Buffer): string[] {
  let parsed: { resourceType?: unknown; issue?: unknown };
  try {
    parsed = JSON.parse(body.subarray(0, 256 * 1024).toString("utf8")) as typeof parsed;
  } catch {
    return [];
  }
  if (parsed?.resourceType !== "OperationOutcome" || !Array.isArray(parsed.issue)) return [];
  return (parsed.issue as Issue[]).slice(0, 10).map((issue) => {
    const said = [issue.diagnostics, issue.details?.text].find((v): v is string => typeof v === "string");
    const where = Array.isArray(issue.expression)
      ? ` (${issue.expression.filter((e) => typeof e === "string").join(", ")})`
      : "";
    return `${String(issue.severity ?? "error")} ${String(issue.code ?? "")}: ${said ?? "no diagnostics"}${where}`;
  });
}
