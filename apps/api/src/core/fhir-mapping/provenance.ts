import { uuidV5, type Identity } from "./push-bundle";
import { CODE_SYSTEMS, type FhirJson } from "./resources";

/**
 * The Provenance of a push: who signed what, and the organization's seal with the sealed PDF's
 * CMS signature, over every resource ClinSign made (docs/fhir.md "Provenance").
 */

/** One person who signed (a request's signer roles, issue 20). */
export interface Signer {
  /** The ClinSign role: `patient`, `legal_representative`, `witness`, `interpreter`, `physician` or the clinic's own. */
  role: string;
  /** The name as signed (typed, or the staff member's); absent for a patient who drew a signature. */
  name?: string;
}

export interface ProvenanceInput {
  /** The fullUrls of the resources ClinSign made: the document, the response, the Observations. */
  targets: string[];
  /** When the record was completed (an instant): the seal's time, or the submission's. */
  recorded: string;
  /** The patient's reference in the Bundle (`patientReference`): the patient signer, and whom a representative acts for. */
  patient: FhirJson;
  signers: Signer[];
  organization: { name: string; identifier?: Identity };
  /**
   * The sealed PDF's signature: the CMS SignedData of its PAdES signature (base64 of the DER),
   * which verifies against the PDF bytes the DocumentReference points at. Absent for a form
   * submitted without a seal.
   */
  seal?: { when: string; cmsBase64: string };
}

const participant = (code: "author" | "verifier" | "attester") => ({
  coding: [{ system: CODE_SYSTEMS.participantType, code, display: code[0]!.toUpperCase() + code.slice(1) }],
});

/** Roles that sign their own declaration (author); everyone else confirms it (verifier). */
const AUTHORS = new Set(["patient", "legal_representative"]);

/**
 * A signer as an agent: the patient is the author and `who` is the patient; a legal representative
 * is an author on the patient's behalf; a witness, interpreter, physician or the clinic's own role
 * verifies. The ClinSign role rides along as the agent's role text.
 */
function signerAgent(signer: Signer, patient: FhirJson): FhirJson {
  const named = signer.name ? { display: signer.name } : {};
  if (signer.role === "patient")
    return { type: participant("author"), role: [{ text: signer.role }], who: { ...patient, ...named } };
  return {
    type: participant(AUTHORS.has(signer.role) ? "author" : "verifier"),
    role: [{ text: signer.role }],
    who: signer.name ? named : { display: signer.role },
    ...(AUTHORS.has(signer.role) && { onBehalfOf: patient }),
  };
}

/** The organization as a reference: its name, and its identifier where the hospital knows one. */
const organizationReference = ({ name, identifier }: ProvenanceInput["organization"]): FhirJson => ({
  type: "Organization",
  ...(identifier && { identifier }),
  display: name,
});

/**
 * The Provenance: `target` every resource made, the signers and the organization as agents, and
 * the seal as `signature`. The organization's agent type is `attester` (see docs/fhir.md): its seal
 * vouches that the record is the one signed and comes from it; `author` is the patient's, and
 * `assembler` is a device compiling new artifacts, not a party vouching for one.
 */
export function provenance(input: ProvenanceInput): FhirJson {
  const organization = organizationReference(input.organization);
  // A Provenance has no identifier; a tag derived from its targets finds it again on a retry.
  const tag = { system: CODE_SYSTEMS.pushTag, code: uuidV5(`Provenance/${input.targets.join(" ")}`) };
  return {
    resourceType: "Provenance",
    meta: { tag: [tag] },
    target: input.targets.map((reference) => ({ reference })),
    recorded: input.recorded,
    agent: [
      ...input.signers.map((signer) => signerAgent(signer, input.patient)),
      { type: participant("attester"), who: organization },
    ],
    ...(input.seal && {
      signature: [
        {
          // ASTM E1762 "Source Signature": the organization signs as the source of the record.
          type: [{ system: CODE_SYSTEMS.signatureType, code: "1.2.840.10065.1.12.1.14", display: "Source Signature" }],
          when: input.seal.when,
          who: organization,
          targetFormat: "application/pdf",
          sigFormat: "application/pkcs7-signature",
          data: input.seal.cmsBase64,
        },
      ],
    }),
  };
}
