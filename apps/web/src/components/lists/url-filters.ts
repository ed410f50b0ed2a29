"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";

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
