"use client";

import { questionnaireLibrary } from "@clinsign/contracts";
import { Button, Card } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./templates.module.css";

/**
 * Scored questionnaires (PHQ-9, GAD-7) a clinic copies into its own templates: the copy is an
 * ordinary draft template the clinic edits like any other, made through `templates.create`.
 */
export function LibraryCard() {
  const { t } = useI18n();
  const f = t.formTemplates;
  const trpc = useTRPC();
  const router = useRouter();
  const copy = useMutation(
    trpc.templates.create.mutationOptions({
      onSuccess: (created) => router.push(`/form-templates/${encodeURIComponent(created.identifier)}`),
    }),
  );
  return (
    <Card title={f.libraryTitle} description={f.libraryBody} aria-label={f.libraryTitle}>
      <ul className={styles.library}>
        {questionnaireLibrary.map((entry) => (
          <li key={entry.id} className={styles.libraryItem}>
            <span>
              <span className={styles.titleLink}>{entry.title}</span>{" "}
              <span className="cs-hint">({f.libraryLanguages[entry.language]})</span>
            </span>
            <Button
              size="small"
              aria-label={`${f.libraryCopy}: ${entry.title}`}
              busy={copy.isPending && copy.variables?.title === entry.title}
              onClick={() =>
                copy.mutate({
                  title: entry.title,
                  description: entry.description,
                  status: "draft",
                  schema: entry.schema,
                })
              }
            >
              {f.libraryCopy}
            </Button>
          </li>
        ))}
      </ul>
      {copy.isError ? (
        <p className="cs-field-error" role="alert">
          {describeApiError(readApiError(copy.error), t)}
        </p>
      ) : null}
    </Card>
  );
}
