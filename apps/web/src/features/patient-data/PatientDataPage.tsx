"use client";

import { can, type PatientErasureReceipt } from "@clinsign/contracts";
import { LiveRegion, Notice, useAnnouncement } from "@clinsign/ui";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useReducer, useRef, type FormEvent } from "react";
import { useSession } from "../../components/admin-shell/SessionContext";
import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { ErasureConfirmDialog } from "./ErasureConfirmDialog";
import { erasureFlow, initialErasureFlow, parseSelector, type SelectorField } from "./erasure-flow";
import { ErasureReceipt, ErasureReport } from "./ErasureResult";
import { PatientSelectorCard } from "./PatientSelectorCard";

/**
 * Patient data (GDPR Art. 17), owners and admins: name the patient → the dry run's report (what is
 * held, or nothing, or a legal hold; signed consents and the retention duty) → confirm with the
 * identifier typed again and a reason (ErasureConfirmDialog) → the receipt, with the reason. One
 * procedure, `patients.erase`.
 */
export function PatientDataPage() {
  const { t } = useI18n();
  const me = useSession();
  if (!can(me.role, "patients.erase"))
    return (
      <>
        <PageHeader title={t.patientData.pageTitle} description={t.patientData.description} />
        <Notice tone="info" title={t.patientData.adminOnlyTitle}>
          {t.patientData.adminOnlyBody}
        </Notice>
      </>
    );
  return <ErasureFlow />;
}

/**
 * The erasure's steps (reducer `erasureFlow`): the patient's names, checked by a dry run of
 * `patients.erase`, the report, the confirmation, the receipt. The focus follows each step.
 */
function useErasureSteps() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [state, dispatch] = useReducer(erasureFlow, initialErasureFlow);
  const { values, focusTo } = state;
  const [announcement, setAnnouncement] = useAnnouncement();
  const firstField = useRef<HTMLInputElement>(null);
  const phoneField = useRef<HTMLInputElement>(null);
  const resultHeading = useRef<HTMLDivElement>(null);
  // Where the focus goes after the render that shows what changed: set with the state it follows,
  // applied once that is on screen.
  useEffect(() => {
    if (!focusTo) return;
    ({ result: resultHeading, first: firstField, phone: phoneField })[focusTo.target].current?.focus();
  }, [focusTo]);

  const preview = useMutation(
    trpc.patients.erase.mutationOptions({
      onSuccess: (result) => dispatch({ type: "reported", report: result }),
      onError: (error) => {
        if (readApiError(error).details.field === "phone") dispatch({ type: "focus", target: "phone" });
      },
    }),
  );
  function onErased(result: PatientErasureReceipt) {
    dispatch({ type: "erased", receipt: result });
    setAnnouncement(t.patientData.erasedAnnouncement);
  }
  // The server reads the phone (national numbers in the organization's country) and says when it is none.
  const phoneRefused = preview.error ? readApiError(preview.error).details.field === "phone" : false;

  function onCheck(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = parseSelector(values, t);
    if ("fieldErrors" in parsed) {
      dispatch({ type: "refused", fieldErrors: parsed.fieldErrors });
      firstField.current?.focus();
      return;
    }
    dispatch({ type: "checking", selector: parsed.selector });
    preview.mutate({ selector: parsed.selector, dryRun: true });
  }

  function onChange(field: SelectorField, value: string) {
    dispatch({ type: "edited", field, value });
    if (field === "phone" && phoneRefused) preview.reset();
  }

  function startOver() {
    dispatch({ type: "startedOver" });
    preview.reset();
  }

  return {
    state,
    dispatch,
    preview,
    phoneRefused,
    announcement,
    refs: { firstField, phoneField, resultHeading },
    onCheck,
    onChange,
    startOver,
    onErased,
  };
}

/** The erasure, one section a step: the patient named, the dry run's report, the receipt; the confirmation. */
function ErasureFlow() {
  const { t } = useI18n();
  const me = useSession();
  const { state, dispatch, preview, phoneRefused, announcement, refs, onCheck, onChange, startOver, onErased } =
    useErasureSteps();
  const { selector, report, receipt } = state;

  return (
    <>
      <PageHeader title={t.patientData.pageTitle} description={t.patientData.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion announcement={announcement} />
        <PatientSelectorCard
          values={state.values}
          fieldErrors={state.fieldErrors}
          locked={report !== null || receipt !== null}
          erased={receipt !== null}
          phoneRefused={phoneRefused}
          checking={preview.isPending}
          error={preview.error}
          firstField={refs.firstField}
          phoneField={refs.phoneField}
          onChange={onChange}
          onCheck={onCheck}
          onStartOver={startOver}
        />
        {report ? (
          <ErasureReport
            report={report}
            exportSelector={selector && can(me.role, "patients.export") ? selector : null}
            headingRef={refs.resultHeading}
            onErase={() => dispatch({ type: "confirming", confirming: true })}
          />
        ) : null}
        {receipt ? <ErasureReceipt receipt={receipt} headingRef={refs.resultHeading} /> : null}
      </div>

      {report && selector ? (
        <ErasureConfirmDialog
          open={state.confirming}
          selector={selector}
          report={report}
          onClose={() => dispatch({ type: "confirming", confirming: false })}
          onErased={onErased}
        />
      ) : null}
    </>
  );
}
