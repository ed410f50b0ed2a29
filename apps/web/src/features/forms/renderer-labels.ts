import type { FieldProblem, FormField, LocalizedTemplate } from "@clinsign/contracts";
import type { FormRendererLabels } from "@clinsign/ui/form";
import { format, type PatientDictionary } from "../../i18n";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Dates in a problem's parameters (`date_too_early {min}`) as the reader writes them. */
function localParams(params: FieldProblem["params"], locale: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    out[name] =
      typeof value === "string" && ISO_DATE.test(value)
        ? new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(new Date(`${value}T00:00:00Z`))
        : typeof value === "number"
          ? new Intl.NumberFormat(locale).format(value)
          : value;
  }
  return out;
}

/** The renderer's texts in the page's language; problems are worded from their code. */
export function rendererLabels(t: PatientDictionary, locale: string): FormRendererLabels {
  const f = t.forms;
  return {
    requiredNote: f.requiredNote,
    requiredMark: f.requiredMark,
    optional: f.optional,
    selectPlaceholder: f.selectPlaceholder,
    errorSummaryTitle: f.errorSummaryTitle,
    characterCount: f.characterCount,
    score: f.score,
    problem: (problem: FieldProblem, field: FormField) => {
      // A pattern's own explanation (the template's help text) says more than "wrong format".
      if (problem.code === "pattern" && field.helpText) return `${f.problems.pattern} ${field.helpText}`;
      if (problem.code === "required") {
        if (field.type === "signature") return f.problems.requiredSignature;
        if (field.type === "file") return f.problems.requiredFile;
        if (field.type === "radio" || field.type === "select" || field.type === "multiselect")
          return f.problems.requiredChoice;
      }
      return format(f.problems[problem.code], localParams(problem.params, locale));
    },
    file: f.file,
    signature: f.signature,
  };
}

/**
 * The renderer's texts for a template shown in one language: the page's texts, and the
 * template's own wording of a field's problem in that language where it has one. The patient
 * form and the builder's preview both use it.
 */
export function templateRendererLabels(
  t: PatientDictionary,
  locale: string,
  errors: LocalizedTemplate["errors"],
): FormRendererLabels {
  const base = rendererLabels(t, locale);
  return {
    ...base,
    problem: (problem, field) =>
      (field.key ? errors[field.key]?.[problem.code] : undefined) ?? base.problem(problem, field),
  };
}
