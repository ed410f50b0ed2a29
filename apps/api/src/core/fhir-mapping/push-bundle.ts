import { createHash } from "node:crypto";
import { CODE_SYSTEMS, type FhirJson } from "./resources";

/**
 * The transaction Bundle ClinSign pushes to a hospital's FHIR server (issue 34), and the identity
 * every resource in it has there. Each entry is a conditional create on the resource's identifier,
 * and each fullUrl a name-based UUID of that identifier: a retry of the same Bundle carries the
 * same `ifNoneExist` and creates nothing twice. The builders (isik-document.ts,
 * isik-questionnaire-response.ts, score-observations.ts, provenance.ts) reference one another by
 * these fullUrls; docs/fhir.md has the mapping.
 */

/** What finds a resource again on the hospital's server: its identifier (a Provenance: its tag). */
export interface Identity {
  system: string;
  value: string;
}

/**
 * The patient as the hospital knows them: the organization maps `patient_id` / `rnummer` to its
 * own identifier system (a URI) and the Bundle names the patient by it.
 */
export interface PatientLink {
  system: string;
  value: string;
  /**
   * `create` (default): a Patient entry, created only where no patient has the identifier
   * (ifNoneExist), which the other resources reference by its fullUrl; the server resolves it to
   * the patient it has. `reference`: no Patient entry; subjects are the conditional reference
   * `Patient?identifier=…`, which the server resolves or refuses (for a HIS that creates no
   * patients from outside).
   */
  mode?: "create" | "reference";
}

/** DNS namespace of RFC 4122 (appendix C): the tests check the algorithm against its examples. */
export const DNS_NAMESPACE = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
const URL_NAMESPACE = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";

/** A name-based UUID (RFC 4122 §4.3, version 5, SHA-1): the same name, the same UUID, everywhere. */
export function uuidV5(name: string, namespace: string = URL_NAMESPACE): string {
  const hash = createHash("sha1")
    .update(Buffer.from(namespace.replaceAll("-", ""), "hex"))
    .update(name, "utf8")
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

/** The fullUrl of a resource of `resourceType` with `identity`: stable across builds and retries. */
export const fullUrlFor = (resourceType: string, identity: Identity) =>
  `urn:uuid:${uuidV5(`${resourceType}/${identity.system}|${identity.value}`)}`;

/** One part of a token search value: FHIR's escapes for `\ | , $`, then the query string's. */
const tokenPart = (text: string) => encodeURIComponent(text.replace(/[\\|,$]/g, (c) => `\\${c}`));
const tokenSearch = (parameter: string, { system, value }: Identity) =>
  `${parameter}=${tokenPart(system)}|${tokenPart(value)}`;

const isIdentity = (value: unknown): value is Identity =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Identity).system === "string" &&
  typeof (value as Identity).value === "string";

/**
 * A Provenance has no identifier in R4: it is named by ClinSign's tag (`meta.tag`) instead, which
 * every server can search (`_tag`). Everything else by its first identifier.
 */
function identityOf(resource: FhirJson): { identity: Identity; search: string } {
  if (resource.resourceType === "Provenance") {
    const tags = ((resource.meta as { tag?: { system?: string; code?: string }[] } | undefined)?.tag ?? []).filter(
      (tag) => tag.system === CODE_SYSTEMS.pushTag && tag.code,
    );
    if (tags[0]) {
      const identity = { system: CODE_SYSTEMS.pushTag, value: tags[0].code! };
      return { identity, search: tokenSearch("_tag", identity) };
    }
  } else {
    const identifier = Array.isArray(resource.identifier) ? (resource.identifier as unknown[])[0] : resource.identifier;
    if (isIdentity(identifier)) {
      const identity = { system: identifier.system, value: identifier.value };
      return { identity, search: tokenSearch("identifier", identity) };
    }
  }
  // Without one a retry could not find what an earlier attempt created: refuse rather than duplicate.
  throw new Error(`a pushed ${String(resource.resourceType)} needs an identifier (a Provenance: ClinSign's tag)`);
}

/** The fullUrl a resource has in the Bundle (its identity's name-based UUID). */
export const fullUrlOf = (resource: FhirJson) =>
  fullUrlFor(String(resource.resourceType), identityOf(resource).identity);

/** How the Bundle's resources name the patient: the Patient entry's fullUrl or the conditional reference, and the identifier. */
export function patientReference(patient: PatientLink): FhirJson {
  const identity = { system: patient.system, value: patient.value };
  const reference =
    patient.mode === "reference" ? `Patient?${tokenSearch("identifier", identity)}` : fullUrlFor("Patient", identity);
  return { reference, type: "Patient", identifier: identity };
}

/** One conditional create: POST, unless a resource with the same identity is already there. */
function entryOf(resource: FhirJson): FhirJson {
  const type = String(resource.resourceType);
  const { identity, search } = identityOf(resource);
  return {
    fullUrl: fullUrlFor(type, identity),
    resource,
    request: { method: "POST", url: type, ifNoneExist: search },
  };
}

/** A transaction of conditional creates, one entry per resource, in the order given. */
export function transaction(resources: FhirJson[]): FhirJson {
  const entry = resources.map(entryOf);
  const seen = new Set<string>();
  for (const { fullUrl } of entry as { fullUrl: string }[]) {
    // Two resources with one identity would be one on the server: the caller mixed something up.
    if (seen.has(fullUrl)) throw new Error(`two resources of the Bundle have the identity of ${fullUrl}`);
    seen.add(fullUrl);
  }
  return { resourceType: "Bundle", type: "transaction", entry };
}

/** What one completed signature request or one form submission pushes. */
export interface PushParts {
  patient: PatientLink;
  /** The DocumentReference, QuestionnaireResponse, Observations and Provenance, built by this library. */
  resources: FhirJson[];
}

/**
 * The Bundle pushed to the hospital: the Patient entry first (a conditional create on the
 * hospital's identifier; none in `reference` mode), then each resource. Byte-identical for the
 * same parts, so a retry is the same request.
 */
export function pushBundle(parts: PushParts): FhirJson {
  const { patient } = parts;
  const patientEntry: FhirJson[] =
    patient.mode === "reference"
      ? []
      : [{ resourceType: "Patient", identifier: [{ system: patient.system, value: patient.value }] }];
  return transaction([...patientEntry, ...parts.resources]);
}
