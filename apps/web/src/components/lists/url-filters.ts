"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from "react";

/**
 * A list's filters live in the URL: a filtered list can be shared, reloaded, and the back button
 * returns to it from a detail page. `apply` replaces the query with the non-empty values.
 */
export function useUrlFilters<Key extends string>(keys: readonly Key[]) {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const values = Object.fromEntries(keys.map((key) => [key, params.get(key) ?? ""])) as Record<Key, string>;

  function apply(next: Partial<Record<Key, string>>) {
    const query = new URLSearchParams();
    for (const key of keys) {
      const value = next[key]?.trim();
      if (value) query.set(key, value);
    }
    const text = query.toString();
    router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
  }

  return { values, apply, query: params.toString() };
}

/**
 * A filter form over `useUrlFilters`: the fields edit a draft, submitting puts it in the URL, and
 * the draft follows the URL when it changes from outside (back button, a shared link).
 */
export function useFilterForm<Key extends string>(keys: readonly Key[]) {
  const { values, apply } = useUrlFilters(keys);
  const [draft, setDraft] = useState(values);
  const [appliedKey, setAppliedKey] = useState(JSON.stringify(values));
  if (JSON.stringify(values) !== appliedKey) {
    setAppliedKey(JSON.stringify(values));
    setDraft(values);
  }
  const set = (key: Key, value: string) => setDraft((current) => ({ ...current, [key]: value }));
  return {
    values,
    apply,
    draft,
    set,
    /** A text or select field's value and change handler, bound to the draft's `key`. */
    field: (key: Key) => ({
      value: draft[key],
      onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => set(key, event.target.value),
    }),
    filtered: Object.values(values).some(Boolean),
    submit(event: FormEvent) {
      event.preventDefault();
      apply(draft);
    },
  };
}

/** A date input's day (YYYY-MM-DD) as the start of that day in the reader's time zone, ISO 8601. */
export function startOfDay(day: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const date = new Date(`${day}T00:00:00`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The end of an inclusive "to" day: the start of the next day, as the list's exclusive bound. */
export function endOfDay(day: string): string | undefined {
  const start = startOfDay(day);
  if (!start) return undefined;
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + 1);
  return date.toISOString();
}

/** A "created between" filter's days (from, to: YYYY-MM-DD) as a list query's bounds. */
export function createdBetween({ from, to }: { from: string; to: string }) {
  return { createdFrom: startOfDay(from), createdTo: endOfDay(to) };
}

/**
 * A search box over a URL filter: it keeps what is typed, and the text goes into the URL (and
 * so into the query) a moment after typing stops. When the URL changes from outside (back
 * button, a shared link), the box follows it.
 */
export function useSearchText(
  applied: string,
  apply: (text: string) => void,
  delayMs = 300,
): [string, (text: string) => void] {
  const [text, setText] = useState(applied);
  const [seen, setSeen] = useState(applied);
  if (applied !== seen) {
    setSeen(applied);
    setText(applied);
  }
  const latestApply = useRef(apply);
  useEffect(() => {
    latestApply.current = apply;
  });
  useEffect(() => {
    if (text.trim() === applied) return;
    const timer = window.setTimeout(() => {
      setSeen(text.trim());
      latestApply.current(text.trim());
    }, delayMs);
    return () => window.clearTimeout(timer);
  }, [text, applied, delayMs]);
  return [text, setText];
}
