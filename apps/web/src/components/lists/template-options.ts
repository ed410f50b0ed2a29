"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../trpc/client";

export interface TemplateOption {
  identifier: string;
  title: string;
  status: string;
}

/** Enough for every form a clinic keeps; a filter naming one beyond it still shows (TemplateSelect). */
const TEMPLATE_OPTIONS_LIMIT = 200;

/**
 * The organization's templates for the lists' form filters and pickers (undefined while loading).
 * `templates.overview` is moving to the list contract (a page instead of an array): this is the
 * one place that reads its shape.
 */
export function useTemplateOptions(): TemplateOption[] | undefined {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.templates.overview.queryOptions({ limit: TEMPLATE_OPTIONS_LIMIT }));
  if (data === undefined) return undefined;
  const items: ReadonlyArray<TemplateOption> = Array.isArray(data) ? data : ((data as { items?: TemplateOption[] }).items ?? []);
  return items.map(({ identifier, title, status }) => ({ identifier, title, status }));
}
