"use client";

import type { FieldIssue, FieldProblem, FormField, FormValues, TemplateSchema } from "@clinsign/contracts";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { fieldControlId } from "./field-frame";
import { loadFormValidation, type FormValidation } from "./form-parts";

/** The set with `key` added (the same set when it holds it already: no new render). */
const withKey = (key: string) => (previous: ReadonlySet<string>) =>
  previous.has(key) ? previous : new Set(previous).add(key);

/** The server's problems by field key; each stands until the patient changes that answer. */
function useServerProblems(serverIssues: readonly FieldIssue[] | undefined, byKey: ReadonlyMap<string, FormField>) {
  const [changedSinceServer, setChangedSinceServer] = useState<ReadonlySet<string>>(new Set());
  const serverProblems = useMemo(() => {
    const map = new Map<string, FieldProblem>();
    for (const issue of serverIssues ?? [])
      if (!changedSinceServer.has(issue.key) && !map.has(issue.key)) map.set(issue.key, issue);
    return map;
  }, [serverIssues, changedSinceServer]);
  useEffect(() => {
    setChangedSinceServer(new Set());
  }, [serverIssues, byKey]);
  const noteServerChange = (key: string) => setChangedSinceServer(withKey(key));
  return { serverProblems, noteServerChange };
}

/**
 * After a failed submit, focus goes to the first problem so keyboard and screen-reader users
 * land on it; the summary above lists them all (and takes focus when no field can).
 */
function useFocusOnProblems(summary: readonly FieldIssue[], idPrefix: string) {
  const [focusRequest, setFocusRequest] = useState(0);
  const summaryRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focusRequest === 0) return;
    const first = summary[0];
    const target = first ? document.getElementById(fieldControlId(idPrefix, first.key)) : summaryRef.current;
    (target ?? summaryRef.current)?.focus();
  }, [focusRequest, summary, idPrefix]);
  const requestFocus = useCallback(() => setFocusRequest((n) => n + 1), []);
  return { summaryRef, requestFocus };
}

/**
 * The renderer's checks: a field's problem once it was left or a submit was tried (or the server
 * named one), the error summary of a failed submit, and focus on its first problem. The
 * validators load on the first interaction.
 */
export function useFormChecks({
  schema,
  values,
  shown,
  byKey,
  serverIssues,
  idPrefix,
  phoneCountry,
}: {
  schema: TemplateSchema;
  values: FormValues;
  shown: readonly FormField[];
  byKey: ReadonlyMap<string, FormField>;
  serverIssues: readonly FieldIssue[] | undefined;
  idPrefix: string;
  phoneCountry: string | undefined;
}) {
  const [validation, setValidation] = useState<FormValidation | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [attempted, setAttempted] = useState(false);
  const [summary, setSummary] = useState<readonly FieldIssue[]>([]);
  const { summaryRef, requestFocus } = useFocusOnProblems(summary, idPrefix);
  const { serverProblems, noteServerChange } = useServerProblems(serverIssues, byKey);

  useEffect(() => {
    if (serverIssues?.length) {
      setSummary(serverIssues.filter((issue) => byKey.has(issue.key)));
      requestFocus();
    }
  }, [serverIssues, byKey, requestFocus]);

  function problemOf(field: FormField): FieldProblem | null {
    if (!field.key) return null;
    const server = serverProblems.get(field.key);
    if (server) return server;
    if (!validation || !(attempted || touched.has(field.key))) return null;
    return validation.checkFieldValue(field, values[field.key], { phoneCountry });
  }

  function loadValidation() {
    if (!validation) void loadFormValidation().then(setValidation);
  }

  /** Called before the page gets a changed answer. */
  function noteChange(key: string) {
    loadValidation();
    noteServerChange(key);
  }

  function touch(key: string) {
    loadValidation();
    setTouched(withKey(key));
  }

  /** The visible, non-empty values to submit; null (focus on the first problem) when some fail. */
  async function checkForSubmit(): Promise<FormValues | null> {
    const loaded = validation ?? (await loadFormValidation());
    setValidation(loaded);
    setAttempted(true);
    const visibleKeys = new Set(shown.map((field) => field.key).filter(Boolean));
    const issues = loaded
      .validateFormValues(schema, values, { phoneCountry })
      .filter((issue) => visibleKeys.has(issue.key));
    setSummary(issues);
    if (issues.length > 0) {
      requestFocus();
      return null;
    }
    return Object.fromEntries(
      Object.entries(loaded.visibleValues(schema, values)).filter(([, value]) => !loaded.isBlankValue(value)),
    );
  }

  const openSummary = summary.filter((issue) => {
    const field = byKey.get(issue.key);
    return field && shown.includes(field) && problemOf(field) !== null;
  });

  return { summaryRef, problemOf, noteChange, touch, checkForSubmit, openSummary };
}
