"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useReducer } from "react";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, isClientError, readApiError } from "../../trpc/errors";
import {
  builderReducer,
  draftOf,
  initialBuilderState,
  isDirty,
  schemaProblems,
  updateInput,
  type BuilderMessage,
} from "./builder-model";
import { readTemplateFile } from "./template-file";

/**
 * The form builder's data: the template (loaded once into the builder's state), the state and its
 * dispatch, the draft's problems, saving it as the next version, and importing a JSON file into it.
 * A draft with unsaved changes asks before the page is left.
 */
export function useTemplateBuilder(identifier: string) {
  const { t } = useI18n();
  const b = t.formTemplates.builder;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const template = useQuery(
    trpc.templates.get.queryOptions(
      { identifier, activeOnly: false },
      { retry: (count, error) => !isClientError(error) && count < 2 },
    ),
  );
  const [state, dispatch] = useReducer(builderReducer, initialBuilderState);
  const { draft } = state;

  useEffect(() => {
    if (template.data && !draft) dispatch({ type: "loaded", draft: draftOf(template.data) });
  }, [template.data, draft]);

  const dirty = isDirty(state);
  const problems = useMemo(() => schemaProblems(draft?.schema), [draft]);
  useLeaveGuard(dirty, b.leaveWarning);

  const save = useMutation(
    trpc.templates.update.mutationOptions({
      onSuccess: (updated) => {
        dispatch({
          type: "saved",
          draft: draftOf(updated),
          message: { tone: "success", text: format(t.formTemplates.saved, { version: updated.schema.version }) },
        });
        queryClient.setQueryData(trpc.templates.get.queryKey({ identifier, activeOnly: false }), updated);
        void queryClient.invalidateQueries({ queryKey: trpc.templates.list.queryKey() });
      },
      onError: (error) =>
        dispatch({ type: "messaged", message: { tone: "danger", text: describeApiError(readApiError(error), t) } }),
    }),
  );

  function saveDraft() {
    if (draft) save.mutate(updateInput(identifier, draft, state.saved));
  }

  async function importFile(file: File | undefined) {
    if (!file || !draft) return;
    const read = await readTemplateFile(file, draft.defaultLanguage);
    if ("problem" in read) {
      dispatch({
        type: "messaged",
        message: { tone: "danger", text: format(b.importFailed, { problem: read.problem }) },
      });
      return;
    }
    const message: BuilderMessage = {
      tone: "info",
      text: format(b.imported, { count: read.imported.schema.fields.length }),
    };
    dispatch({ type: "imported", imported: read.imported, message });
  }

  return { template, state, dispatch, dirty, problems, saving: save.isPending, saveDraft, importFile };
}
