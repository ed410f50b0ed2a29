"use client";

import { type TemplateSchema } from "@clinsign/contracts";
import { Button, Card, EmptyState, TextField } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { addOptionSet, optionSetUsers, removeOptionSet, updateOptionSet } from "./builder-model";
import { OptionRows } from "./OptionRows";
import styles from "./builder.module.css";

/** The template's answer lists (FHIR's answerValueSet): each written once, used by several questions. */
export function AnswerListsPanel({
  schema,
  problems,
  onChange,
  announce,
}: {
  schema: TemplateSchema;
  /** Problems by list index, then attribute (`label`, `options`, `id`). */
  problems: Map<number, Record<string, string>>;
  onChange(schema: TemplateSchema): void;
  announce(message: string): void;
}) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const sets = schema.optionSets ?? [];
  return (
    <section className="cs-stack" aria-labelledby="answer-lists-heading">
      <h2 id="answer-lists-heading">{b.answerListsView}</h2>
      <p className="cs-hint">{b.answerListsIntro}</p>
      {sets.length === 0 ? <EmptyState level={3} title={b.answerListsNone} /> : null}
      <ol className={styles.answerLists}>
        {sets.map((set, i) => {
          const users = optionSetUsers(schema, set.id);
          const problem = problems.get(i);
          return (
            <li key={set.id}>
              <Card>
                <div className="cs-stack">
                  <TextField
                    label={b.answerListName}
                    value={set.label}
                    error={problem?.label}
                    onChange={(event) => onChange(updateOptionSet(schema, set.id, { label: event.target.value }))}
                  />
                  <OptionRows
                    options={set.options}
                    problem={problem?.options}
                    onChange={(options) => onChange(updateOptionSet(schema, set.id, { options }))}
                  />
                  <p className="cs-hint">
                    {users.length > 0
                      ? format(b.answerListUsedBy, { labels: users.map((f) => f.label || f.key).join(", ") })
                      : b.answerListUnused}
                  </p>
                  <div>
                    <Button
                      size="small"
                      variant="danger-outline"
                      onClick={() => {
                        onChange(removeOptionSet(schema, set.id));
                        announce(format(b.answerListRemoved, { name: set.label }));
                      }}
                    >
                      {format(b.answerListRemove, { name: set.label })}
                    </Button>
                  </div>
                </div>
              </Card>
            </li>
          );
        })}
      </ol>
      <div>
        <Button
          onClick={() => {
            const name = `${b.answerListDefaultName} ${sets.length + 1}`;
            // Two options to start from, as a new choice field has.
            onChange(addOptionSet(schema, name, ["Option 1", "Option 2"]).schema);
            announce(format(b.answerListAdded, { name }));
          }}
        >
          {b.answerListAdd}
        </Button>
      </div>
    </section>
  );
}
