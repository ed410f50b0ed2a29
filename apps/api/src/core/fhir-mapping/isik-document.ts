import { fullUrlFor, patientReference, type PatientLink } from "./push-bundle";
import { CLINSIGN, CODE_SYSTEMS, ISIK, systems, type Coding, type FhirJson } from "./resources";

/**
 * A sealed PDF as ISiKDokumentenMetadaten (gematik ISiK Dokumentenaustausch, stage 4), for the
 * push Bundle. `core/fhir/document-reference.ts` serves the same PDF on ClinSign's own FHIR door;
 * this one follows the profile a hospital's document server is certified against (docs/fhir.md).
 */

/** A code and its display, from the code system the element binds. */
export interface CodeAndDisplay {
  code: string;
  display: string;
}

/** Confidentiality of the document, v3-Confidentiality as ISiK allows: normal, restricted, very restricted. */
export type Confidentiality = "N" | "R" | "V";

export interface SealedDocumentInput {
  /** ClinSign's public API URL: the identifier systems live under it. */
  apiUrl: string;
  /** The signature request the PDF completed (a UUID): its identifier and master identifier. */
  requestId: string;
  /** The system of that identifier; absent: the signature request's (a signed form's PDF: the submission's). */
  identifierSystem?: string;
  patient: PatientLink;
  /** What the document is, for people ("Einwilligung Datenverarbeitung vom 02.12.2026"). */
  description: string;
  title: string;
  /** The language the document is written in (BCP 47). */
  language: string;
  /**
   * The sealed bytes' size and digests, and where the server gets them: `url` (ClinSign's link) or
   * `data` (the bytes, base64: ISiK's "Dokumentenbereitstellung", the server keeps them as a Binary).
   */
  pdf: { size: number; sha1Base64: string; sha256Hex: string } & (
    { url: string; data?: string } | { data: string; url?: string }
  );
  /** When the seal was applied (an instant): the document's date. */
  sealedAt: string;
  confidentiality: Confidentiality;
  /** The KDL code chosen for the document in the console; absent: AM050199 (see DEFAULT_KDL_TYPE). */
  type?: CodeAndDisplay;
  /** Its IHE XDS classCode; absent: ADM for a type of KDL's administrative chapter, else left to the server (0..1 in ISiK). */
  category?: CodeAndDisplay;
  /** The organization's department as an IHE practice setting; absent: ALLG (ISiK's own example). */
  practiceSetting?: CodeAndDisplay;
  /** The author's name (ISiK: a name is enough): the organization. */
  author?: string;
  /** The signature request whose PDF this one replaces (a new version of the document). */
  replacesRequestId?: string;
  /** The QuestionnaireResponse of a form signed in this PDF (its fullUrl in the Bundle). */
  questionnaireResponse?: string;
}

/**
 * Without a choice in the console: "Sonstige Einwilligung/Erklärung". What ClinSign seals is a
 * declaration or consent the patient signed; this is the widest class of those, and the DVMD
 * ConceptMap maps it to the XDS class ADM (below).
 */
export const DEFAULT_KDL_TYPE: CodeAndDisplay = { code: "AM050199", display: "Sonstige Einwilligung/Erklärung" };
/** IHE-D classCode of the default type (DVMD ConceptMap kdl-ihe-classcode). */
export const DEFAULT_CLASS: CodeAndDisplay = { code: "ADM", display: "Administratives Dokument" };
/** ISiK: "KHS" where nothing else is known (ISiKDokumentenMetadaten, context.facilityType). */
const FACILITY_HOSPITAL: CodeAndDisplay = { code: "KHS", display: "Krankenhaus" };
const CONFIDENTIALITY: Record<Confidentiality, CodeAndDisplay> = {
  N: { code: "N", display: "normal" },
  R: { code: "R", display: "restricted" },
  V: { code: "V", display: "very restricted" },
};
/** ISiK's own example's practice setting, a code in every version of the value set. */
const DEFAULT_PRACTICE_SETTING: CodeAndDisplay = { code: "ALLG", display: "Allgemeinmedizin" };

/**
 * A UUID as an OID under 2.25 (ITU-T X.667): the 128 bits as one decimal number. ISiK asks for a
 * version-specific OID as the master identifier and names this construction (IHE "Creating Unique
 * IDs"); no OID arc of our own is needed.
 */
export function uuidAsOid(uuid: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid))
    throw new Error(`not a UUID: ${uuid}`);
  return `2.25.${BigInt(`0x${uuid.replaceAll("-", "")}`).toString(10)}`;
}

const coding = (system: string, { code, display }: CodeAndDisplay): Coding => ({ system, code, display });
const concept = (system: string, value: CodeAndDisplay) => ({ coding: [coding(system, value)] });

/**
 * The XDS class of a KDL type where we know it: the administrative chapter (AM: consents,
 * informed-consent forms, declarations, contracts) is ADM, as ISiK's own example files an
 * AM010303 "Operationsaufklärungsbogen"; others are left to the server.
 */
const classOfKdl = (code: string): CodeAndDisplay | undefined => (code.startsWith("AM") ? DEFAULT_CLASS : undefined);

/** The document's type (KDL) and category (XDS class). */
function classification(input: SealedDocumentInput) {
  const type = input.type ?? DEFAULT_KDL_TYPE;
  const category = input.category ?? classOfKdl(type.code);
  return {
    type: concept(CODE_SYSTEMS.kdl, type),
    ...(category && { category: [concept(CODE_SYSTEMS.iheClass, category)] }),
  };
}

/** The sealed PDF, its one `content` (ISiK allows one): where it is, its size, SHA-1 and language. */
function contentOf(input: SealedDocumentInput): FhirJson[] {
  const { pdf } = input;
  return [
    {
      attachment: {
        contentType: "application/pdf",
        language: input.language,
        ...(pdf.data !== undefined && { data: pdf.data }),
        ...(pdf.url !== undefined && { url: pdf.url }),
        size: pdf.size,
        hash: pdf.sha1Base64,
        extension: [{ url: CLINSIGN.sha256, valueString: pdf.sha256Hex }],
        title: input.title,
        creation: input.sealedAt,
      },
      format: {
        system: CODE_SYSTEMS.iheFormat,
        code: "urn:ihe:iti:xds:2017:mimeTypeSufficient",
        display: "mimeType Sufficient",
      },
    },
  ];
}

/** ISiK's mandatory context: facility type, practice setting; the signed form's response, where there is one. */
function contextOf(input: SealedDocumentInput): FhirJson {
  return {
    facilityType: concept(CODE_SYSTEMS.iheFacility, FACILITY_HOSPITAL),
    practiceSetting: concept(CODE_SYSTEMS.ihePracticeSetting, input.practiceSetting ?? DEFAULT_PRACTICE_SETTING),
    ...(input.questionnaireResponse && {
      related: [{ reference: input.questionnaireResponse, type: "QuestionnaireResponse" }],
    }),
  };
}

/** A sealed PDF as ISiKDokumentenMetadaten: every element the profile requires, in one order. */
export function isikDocumentReference(input: SealedDocumentInput): FhirJson {
  const requestSystem = systems(input.apiUrl).signatureRequest;
  return {
    resourceType: "DocumentReference",
    meta: { profile: [ISIK.documentReference] },
    masterIdentifier: { system: CODE_SYSTEMS.uri, value: `urn:oid:${uuidAsOid(input.requestId)}` },
    identifier: [{ system: input.identifierSystem ?? requestSystem, value: input.requestId }],
    status: "current",
    docStatus: "final",
    ...classification(input),
    subject: patientReference(input.patient),
    date: input.sealedAt,
    ...(input.author && { author: [{ display: input.author }] }),
    description: input.description,
    ...(input.replacesRequestId && {
      relatesTo: [
        {
          code: "replaces",
          target: { type: "DocumentReference", identifier: { system: requestSystem, value: input.replacesRequestId } },
        },
      ],
    }),
    securityLabel: [concept(CODE_SYSTEMS.confidentiality, CONFIDENTIALITY[input.confidentiality])],
    content: contentOf(input),
    context: contextOf(input),
  };
}

/**
 * The reference a resource of the Bundle makes to the DocumentReference of a request's sealed PDF:
 * known from the request alone, so the response and the document can point at each other.
 */
export function documentReferenceLink(apiUrl: string, requestId: string): FhirJson {
  const identifier = { system: systems(apiUrl).signatureRequest, value: requestId };
  return { reference: fullUrlFor("DocumentReference", identifier), type: "DocumentReference", identifier };
}
