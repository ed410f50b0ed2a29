import type { FormField, ScoreBand, ScoreField } from "@clinsign/contracts";
import { CLINSIGN, CODE_SYSTEMS, HL7, type Coding, type Extension, type FhirJson } from "./resources";
import { interpretationOf } from "./score-observations";

/**
 * SDC template-based extraction (STU4) of a coded score, beside the observation-based marker: a
 * contained Observation template the item names with `templateExtract`, whose FHIRPath extensions
 * fill in, from the same response, what `observationOf` (score-observations.ts) writes. The
 * expressions run on the score's response item; `%resource` is the response. What no FHIRPath can
 * compute (the Observation's name-based identifier, the fullUrl of a response without an id) the
 * template leaves out: template-extract.test.ts and docs/fhir.md.
 */

export type CodedScore = ScoreField & { code: NonNullable<ScoreField["code"]> };

/** A FHIRPath string literal (FHIRPath escapes `\` and `'` with a backslash). */
const literal = (text: string) => `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** The expression whose result becomes the element carrying it (nothing: the element goes). */
const valueOf = (expression: string): Extension => ({ url: HL7.templateExtractValue, valueString: expression });
/** A primitive's `_element`, or a complex element, that is the expression's result. */
const filledBy = (expression: string): FhirJson => ({ extension: [valueOf(expression)] });

/** The element once per result of the expression, which is `$this` inside it (none: the element goes). */
const eachOf = (expression: string): Extension => ({ url: HL7.templateExtractContext, valueString: expression });

/** The band's label, as core/fhir writes it on the score's answer. */
const BAND = `answer.extension.where(url = ${literal(CLINSIGN.scoreBand)}).value`;

/**
 * The band as `interpretationOf` reads it: its label as text and, for a label naming a severity, that
 * severity's coding, kept only where the answer's band is that label.
 */
function interpretationTemplate(bands: ScoreBand[]): FhirJson {
  const coding = [...new Set(bands.map((band) => band.label))].flatMap((label) => {
    // interpretationOf writes its coding as a Coding list (or none).
    const [severity] = (interpretationOf(label).coding ?? []) as Coding[];
    if (!severity?.code) return [];
    return [
      {
        extension: [eachOf(`${BAND}.where($this = ${literal(label)})`)],
        system: severity.system,
        // A constant, yet an expression: CSIRO's extractor writes an element under a context only where a value is filled.
        _code: filledBy(literal(severity.code)),
        display: severity.display,
      },
    ];
  });
  return { ...(coding.length && { coding }), _text: filledBy(BAND) };
}

/** Whether every sum of the score is whole: each weight of its sources' options is (a choice without one adds 0). */
const wholeSums = (sources: FormField[]) =>
  sources.every(
    (source) =>
      !("options" in source) ||
      source.options.every((option) => typeof option === "string" || Number.isInteger(option.weight ?? 0)),
  );

/**
 * The score as `numberValue` writes it: valueInteger when whole, else valueQuantity (R4 Observation
 * has no valueDecimal). Where every sum is whole the template names valueInteger alone: one value[x].
 */
function valueTemplate(sources: FormField[]): FhirJson {
  if (wholeSums(sources)) return { _valueInteger: filledBy("answer.value") };
  return {
    _valueInteger: filledBy("answer.value.where(floor() = ceiling())"),
    valueQuantity: { _value: filledBy("answer.value.where(floor() != ceiling())") },
  };
}

/**
 * The Observation template of one coded score (`id`: its id among the Questionnaire's contained
 * resources; `sources`: the fields it sums).
 */
export function scoreTemplate(field: CodedScore, id: string, sources: FormField[]): FhirJson {
  return {
    resourceType: "Observation",
    id,
    basedOn: [{ extension: [eachOf("%resource.basedOn"), valueOf("$this")] }],
    status: "final",
    category: [{ coding: [{ system: CODE_SYSTEMS.observationCategory, code: "survey", display: "Survey" }] }],
    code: { coding: [field.code], text: field.label },
    subject: filledBy("%resource.subject"),
    encounter: filledBy("%resource.encounter"),
    _effectiveDateTime: filledBy("%resource.authored"),
    _issued: filledBy("%resource.authored"),
    performer: [filledBy("%resource.author")],
    ...valueTemplate(sources),
    ...(field.bands?.length && { interpretation: [interpretationTemplate(field.bands)] }),
    // A response named by its id; one without (a Bundle entry named by its fullUrl) gives no derivedFrom.
    derivedFrom: [
      {
        extension: [eachOf("%resource.id")],
        _reference: filledBy("'QuestionnaireResponse/' + $this"),
        type: "QuestionnaireResponse",
      },
    ],
  };
}

/** The item's pointer to its template (SDC `templateExtract`, sub-extension `template`). */
export const templateExtractOf = (template: FhirJson): Extension => ({
  url: HL7.templateExtract,
  extension: [{ url: "template", valueReference: { reference: `#${String(template.id)}` } }],
});

/**
 * A template's id: the score's linkId as an R4 id (letters, digits, `-` and `.`, at most 64),
 * different from every id in `contained`.
 */
export function templateIdFor(linkId: string, contained: FhirJson[]): string {
  const base = `${linkId.replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 48)}-observation`;
  let id = base;
  for (let n = 2; contained.some((resource) => resource.id === id); n++) id = `${base}-${n}`;
  return id;
}
