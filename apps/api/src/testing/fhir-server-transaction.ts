import type { FhirResponse, MemoryRepository } from "@medplum/fhir-router";
import { errorOutcome, type FhirResource, type Medplum, type OperationOutcome } from "./fhir-server-medplum";

/**
 * HARNESS HANDLING, not Medplum's: what its in-memory repository leaves out of an R4 transaction,
 * added here as small as it can be (checked against @medplum/fhir-router 5.2.13):
 *
 * 1. All or nothing. With `config.transactions` the router stops at the first failing entry and
 *    answers that entry's error, but `MemoryRepository.withTransaction` runs the work without a
 *    rollback, so the entries processed before it would stay stored. R4 says a transaction
 *    succeeds or fails as a whole; we snapshot the resource types the Bundle writes and put them
 *    back when the router answers an error.
 * 2. Conditional references (`"subject": {"reference": "Patient?identifier=sys|value"}`), which R4
 *    lets a transaction carry for the server to resolve by search: the router stores them as
 *    written. We resolve each against the resources stored before the transaction (a resource the
 *    same Bundle creates is referenced by its fullUrl instead): one match becomes `Patient/<id>`,
 *    none fails the transaction with 404, several with 412.
 *
 * Medplum's own, untouched: conditional create (`ifNoneExist`: 201 when created, 200 when one
 * resource matches, 412 when several do), `urn:uuid:` fullUrl references rewritten to the ids it
 * assigns, and the transaction-response Bundle.
 */

type Bundle = Extract<FhirResource, { resourceType: "Bundle" }>;
type ResourceType = FhirResource["resourceType"];
/** The stored resources (each with its id) of each type a transaction writes, as they were before it. */
type Snapshot = Map<ResourceType, Awaited<ReturnType<MemoryRepository["searchResources"]>>>;

export async function runTransaction(
  medplum: Medplum,
  repository: MemoryRepository,
  bundle: Bundle,
  route: (bundle: Bundle) => Promise<FhirResponse>,
): Promise<FhirResponse> {
  const unresolved = await resolveConditionalReferences(medplum, repository, bundle);
  if (unresolved) return [unresolved];
  const before = await snapshot(repository, writtenTypes(medplum, bundle));
  const response = await route(bundle);
  if (!medplum.core.isOk(response[0])) await restore(repository, before);
  return response;
}

/** The resource types the Bundle's entries write (`POST Observation`, `PUT Patient/1`, `DELETE …`). */
function writtenTypes(medplum: Medplum, bundle: Bundle): ResourceType[] {
  const types = new Set<ResourceType>();
  for (const entry of bundle.entry ?? []) {
    if (!entry.request || entry.request.method === "GET" || entry.request.method === "HEAD") continue;
    const type = entry.request.url.split(/[/?]/)[0] ?? "";
    if (medplum.core.isResourceType(type)) types.add(type);
  }
  return [...types];
}

async function snapshot(repository: MemoryRepository, types: ResourceType[]): Promise<Snapshot> {
  const taken: Snapshot = new Map();
  for (const resourceType of types) taken.set(resourceType, await repository.searchResources({ resourceType }));
  return taken;
}

/** Back to the snapshot: what the transaction added is expunged, what it changed or deleted rewritten as it was. */
async function restore(repository: MemoryRepository, before: Snapshot): Promise<void> {
  for (const [resourceType, resources] of before) {
    const earlier = new Map(resources.map((resource) => [resource.id, resource.meta?.versionId]));
    const now = await repository.searchResources({ resourceType });
    const added = now.filter((resource) => !earlier.has(resource.id)).map((resource) => resource.id);
    await repository.expungeResources(resourceType, added);
    const versions = new Map(now.map((resource) => [resource.id, resource.meta?.versionId]));
    const changed = resources.filter((resource) => versions.get(resource.id) !== resource.meta?.versionId);
    // Seeding keeps the old `meta.versionId` and `lastUpdated` instead of assigning new ones.
    await repository.withSeeding(async () => {
      for (const resource of changed) await repository.createResource(resource, undefined, true);
    });
  }
}

const CONDITIONAL_REFERENCE = /^[A-Z][A-Za-z]+\?./;

interface ReferenceHolder {
  reference: string;
  replace(reference: string): void;
}

/** Rewrites each conditional reference in the entries to `Type/id`; an OperationOutcome when one does not resolve to exactly one resource. */
async function resolveConditionalReferences(
  medplum: Medplum,
  repository: MemoryRepository,
  bundle: Bundle,
): Promise<OperationOutcome | undefined> {
  const { core } = medplum;
  for (const holder of referencesIn(bundle.entry?.map((entry) => entry.resource) ?? [])) {
    if (!CONDITIONAL_REFERENCE.test(holder.reference)) continue;
    const matches = await repository.searchResources({ ...core.parseSearchRequest(holder.reference), count: 2 });
    const [match] = matches;
    // Medplum's outcome ids carry the status (412, 404); the text names the reference.
    if (matches.length > 1)
      return { ...core.multipleMatches, issue: issues(`${holder.reference} matches several resources`) };
    if (!match) return { ...core.notFound, issue: issues(`${holder.reference} matches no resource`) };
    holder.replace(`${match.resourceType}/${match.id}`);
  }
  return undefined;
}

function issues(text: string): OperationOutcome["issue"] {
  return errorOutcome("processing", `Conditional reference ${text}`).issue;
}

/** Every object with a string `reference` (a Reference) anywhere inside `value`. */
function referencesIn(value: unknown, found: ReferenceHolder[] = []): ReferenceHolder[] {
  if (Array.isArray(value)) for (const item of value) referencesIn(item, found);
  else if (isObject(value)) {
    const holder = value;
    if (typeof holder.reference === "string")
      found.push({ reference: holder.reference, replace: (reference) => (holder.reference = reference) });
    for (const child of Object.values(value)) referencesIn(child, found);
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
