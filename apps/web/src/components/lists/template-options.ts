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

/** The organization's templates for the lists' form filters and pickers (undefined while loading). */
export function useTemplateOptions(): TemplateOption[] | undefined {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.templates.overview.queryOptions({ limit: TEMPLATE_OPTIONS_LIMIT }));
  return data?.items.map(({ identifier, title, status }) => ({ identifier, title, status }));
}
