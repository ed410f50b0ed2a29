"use client";

import {
  retentionKinds,
  type RetentionKind,
  type RetentionPeriod,
  type RetentionPreview as Preview,
  type RetentionSettings as Settings,
} from "@clinsign/contracts";
import { Button, Card, Icon, Notice, SelectField, Table, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useFocusFirstInvalid } from "../../components/useFocusFirstInvalid";
import { QueryState } from "../../components/QueryState";

import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import {
  invalidRetentionKinds,
  maxAmount,
  retentionFormFrom,
  retentionPayload,
  type RetentionErrors,
  type RetentionFormState,
  type RetentionRule,
} from "./retention-form";
import { SaveRow } from "./SaveRow";
import styles from "./settings.module.css";

type Texts = Dictionary["retention"];

/** A period in words: "30 days", "10 years", "keep". */
function describePeriod(period: RetentionPeriod | null, r: Texts): string {
  if (!period) return r.periodKeep;
  return format(period.unit === "years" ? r.periodYears : r.periodDays, { amount: period.amount });
}

/**
 * Data retention (Settings): how long each kind of record is kept, what the next daily run would
 * delete now, and how the last run went. Everyone sees it; owners and admins change it.
 */
export function RetentionSettings() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const settings = useQuery(trpc.retention.settings.queryOptions());
  return (
    <>
      <Card title={t.retention.title} description={t.retention.description}>
        <QueryState query={settings} lines={6}>
          {(data) => <RetentionForm settings={data} />}
        </QueryState>
      </Card>
      <RetentionPreview />
    </>
  );
}

function RetentionForm({ settings }: { settings: Settings }) {
  const { t } = useI18n();
  const r = t.retention;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canEdit = useCan()("retention.updatePolicy");
  const formRef = useRef<HTMLFormElement>(null);
  const [form, setForm] = useState<RetentionFormState>(() => retentionFormFrom(settings.policy));
  const [errors, setErrors] = useState<RetentionErrors>({});
  // After the render that shows the messages: the first invalid amount takes the focus.
  useFocusFirstInvalid(formRef, Object.keys(errors).length > 0 ? errors : null);
  const [saved, setSaved] = useState(false);

  const save = useMutation(
    trpc.retention.updatePolicy.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(trpc.retention.settings.queryKey(), next);
        void queryClient.invalidateQueries({ queryKey: trpc.retention.preview.queryKey() });
        setForm(retentionFormFrom(next.policy));
        setErrors({});
        setSaved(true);
      },
    }),
  );

  function change(kind: RetentionKind, rule: Partial<RetentionRule>) {
    setForm((current) => ({ ...current, [kind]: { ...current[kind], ...rule } }));
    setSaved(false);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const invalid = invalidRetentionKinds(form);
    const next: RetentionErrors = {};
    for (const kind of invalid) next[kind] = format(r.amountInvalid, { max: maxAmount(form[kind].mode) });
    setErrors(next);
    if (invalid.length > 0) return;
    save.mutate(retentionPayload(form));
  }

  const disabled = !canEdit;
  return (
    <form ref={formRef} className="cs-stack cs-stack--lg" onSubmit={onSubmit} noValidate aria-label={r.title}>
      {disabled ? <Notice>{r.readOnly}</Notice> : null}
      <ErrorNotice error={save.error} fields={retentionKinds} />
      <RunStatus settings={settings} r={r} />
      {retentionKinds.map((kind) => (
        <RetentionRuleFieldset
          key={kind}
          kind={kind}
          rule={form[kind]}
          defaultPeriod={settings.defaults[kind]}
          error={errors[kind]}
          disabled={disabled}
          r={r}
          onChange={(rule) => change(kind, rule)}
        />
      ))}
      {disabled ? null : (
        <SaveRow
          feedback={saved ? { tone: "success", text: r.saved } : null}
          busy={save.isPending}
          saveLabel={r.save}
        />
      )}
    </form>
  );
}

/** One kind's rule: days, years or keep, with the amount when it is not kept for good. */
function RetentionRuleFieldset({
  kind,
  rule,
  defaultPeriod,
  error,
  disabled,
  r,
  onChange,
}: {
  kind: RetentionKind;
  rule: RetentionRule;
  defaultPeriod: RetentionPeriod | null;
  error: string | undefined;
  disabled: boolean;
  r: Texts;
  onChange(rule: Partial<RetentionRule>): void;
}) {
  return (
    <fieldset className={`cs-stack ${styles.fieldset}`} data-testid={`retention-${kind}`}>
      <legend className="cs-label">{r.kinds[kind]}</legend>
      <p className="cs-hint">
        {r.hints[kind]} {format(r.defaultIs, { rule: describePeriod(defaultPeriod, r) })}
      </p>
      <div className={styles.retentionRule}>
        <SelectField
          label={r.ruleLabel}
          name={`retention-${kind}-rule`}
          value={rule.mode}
          disabled={disabled}
          onChange={(event) => {
            const mode = event.currentTarget.value as RetentionRule["mode"];
            onChange({ mode, amount: mode !== "keep" && !rule.amount ? "1" : rule.amount });
          }}
          options={[
            { value: "days", label: r.ruleDays },
            { value: "years", label: r.ruleYears },
            { value: "keep", label: r.ruleKeep },
          ]}
        />
        {rule.mode === "keep" ? null : (
          <TextField
            label={rule.mode === "years" ? r.amountYearsLabel : r.amountDaysLabel}
            name={`retention-${kind}-amount`}
            type="number"
            inputMode="numeric"
            min={1}
            max={maxAmount(rule.mode)}
            step={1}
            className={styles.daysField}
            value={rule.amount}
            disabled={disabled}
            error={error}
            onChange={(event) => onChange({ amount: event.currentTarget.value })}
          />
        )}
      </div>
    </fieldset>
  );
}

/** When the sweep runs next and what its last run did. */
function RunStatus({ settings, r }: { settings: Settings; r: Texts }) {
  const clinic = useClinicTime();
  const { status } = settings;
  const lines: string[] = [];
  if (status.running) lines.push(r.running);
  if (status.lastError) lines.push(format(r.lastRunFailed, { error: status.lastError }));
  else if (status.lastFinishedAt && status.lastDeleted) {
    const count = Object.values(status.lastDeleted).reduce((sum, n) => sum + n, 0);
    lines.push(format(r.lastRun, { date: clinic.dateTimeWithZone(status.lastFinishedAt), count }));
  } else if (!status.running) lines.push(r.neverRun);
  const next = status.nextRunAt && new Date(status.nextRunAt).getTime() > Date.now() ? status.nextRunAt : null;
  lines.push(next ? format(r.nextRun, { date: clinic.dateTimeWithZone(next) }) : r.nextRunSoon);
  return (
    <p className="cs-hint" data-testid="retention-status">
      {lines.join(" ")}
    </p>
  );
}

/** "What the next run deletes": counted by the API now, per kind, with what a legal hold keeps. */
function RetentionPreview() {
  const { t, locale } = useI18n();
  const clinic = useClinicTime();
  const r = t.retention;
  const trpc = useTRPC();
  const preview = useQuery(trpc.retention.preview.queryOptions());
  const number = new Intl.NumberFormat(locale);
  type Row = Preview["kinds"][number];
  const columns = [
    { key: "kind", header: r.columnKind, render: (row: Row) => r.kinds[row.kind] },
    { key: "rule", header: r.columnRule, render: (row: Row) => describePeriod(row.period, r) },
    {
      key: "cutoff",
      header: r.columnCutoff,
      render: (row: Row) => (row.cutoff ? clinic.dateTimeWithZone(row.cutoff) : r.notDeleted),
    },
    { key: "records", header: r.columnRecords, render: (row: Row) => number.format(row.records) },
    { key: "held", header: r.columnHeld, render: (row: Row) => number.format(row.held) },
  ];
  return (
    <Card
      title={r.previewTitle}
      description={r.previewDescription}
      actions={
        <Button
          size="small"
          icon={<Icon name="refresh" />}
          busy={preview.isFetching && !preview.isPending}
          onClick={() => void preview.refetch()}
        >
          {r.refresh}
        </Button>
      }
    >
      <QueryState query={preview} lines={6}>
        {(data) => (
          <div data-testid="retention-preview">
            <Table caption={r.previewCaption} columns={columns} rows={data.kinds} rowKey={(row) => row.kind} />
          </div>
        )}
      </QueryState>
    </Card>
  );
}
