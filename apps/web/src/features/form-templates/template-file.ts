import {
  templateSchema,
  templateTranslations,
  translationProblems,
  type PatientLanguage,
  type TemplateSchema,
  type TemplateTranslations,
} from "@clinsign/contracts";
import type { Draft, ImportedTemplate } from "./builder-model";

// A template as a JSON file: exported from the builder, imported back into one (its schema and
// languages; the title and status stay the builder's).

/** Downloads the draft as `<identifier>.json`. */
export function downloadTemplateFile(draft: Draft, identifier: string) {
  const blob = new Blob(
    [
      JSON.stringify(
        {
          title: draft.title,
          description: draft.description || null,
          schema: draft.schema,
          defaultLanguage: draft.defaultLanguage,
          translations: draft.translations,
        },
        null,
        2,
      ),
    ],
    { type: "application/json" },
  );
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `${identifier}.json`;
  link.click();
  URL.revokeObjectURL(url);
}

/**
 * An imported file's languages: its `defaultLanguage` and `translations` when they are valid for
 * the imported schema, else null with the first problem.
 */
function importedLanguages(
  raw: unknown,
  schema: TemplateSchema,
  fallback: PatientLanguage,
): { defaultLanguage: PatientLanguage; translations: TemplateTranslations } | { problem: string } {
  const file = (raw && typeof raw === "object" ? raw : {}) as { defaultLanguage?: unknown; translations?: unknown };
  const defaultLanguage = (
    typeof file.defaultLanguage === "string" ? file.defaultLanguage : fallback
  ) as PatientLanguage;
  const parsed = templateTranslations.safeParse(file.translations ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `translations.${issue.path.join(".")}: ${issue.message}` };
  }
  const translations = parsed.data as TemplateTranslations;
  const [problem] = translationProblems(schema, translations, defaultLanguage);
  if (problem) return { problem: `translations.${problem.path.join(".")}: ${problem.message}` };
  return { defaultLanguage, translations };
}

/**
 * What an imported file holds (a whole exported template, or a bare schema), or its first problem
 * (not JSON, an invalid schema, translations that do not fit it). Without a language of its own the
 * file keeps `fallbackLanguage`.
 */
export async function readTemplateFile(
  file: File,
  fallbackLanguage: PatientLanguage,
): Promise<{ imported: ImportedTemplate } | { problem: string }> {
  try {
    const raw = JSON.parse(await file.text()) as { schema?: unknown };
    const parsed = templateSchema.safeParse(raw && typeof raw === "object" && "schema" in raw ? raw.schema : raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { problem: `${issue.path.join(".")}: ${issue.message}` };
    }
    const languages = importedLanguages(raw, parsed.data, fallbackLanguage);
    if ("problem" in languages) return languages;
    return { imported: { schema: parsed.data, ...languages } };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
