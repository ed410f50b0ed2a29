"use client";

import type { DocumentDetail } from "@clinsign/contracts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";

type Availability = DocumentDetail["availability"];

/**
 * The document page's changes: saving a new version, setting the availability (the choice shows at
 * once and goes back if the change is refused) and deleting; what went well is announced.
 */
export function useDocumentChanges(id: string, currentVersion: number | undefined) {
  const { t } = useI18n();
  const d = t.documentsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [announcement, setAnnouncement] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
  const save = useMutation(
    trpc.documents.update.mutationOptions({
      onSuccess: async () => {
        await refresh();
        setAnnouncement(format(d.saved, { version: (currentVersion ?? 0) + 1 }));
      },
    }),
  );
  const [chosenAvailability, setChosenAvailability] = useState<Availability | null>(null);
  const setAvailability = useMutation(
    trpc.documents.setAvailability.mutationOptions({
      onSuccess: async (result) => {
        await refresh();
        setAnnouncement(format(d.availabilityChanged, { availability: d.availability[result.availability] }));
      },
      onSettled: () => setChosenAvailability(null),
    }),
  );
  const remove = useMutation(
    trpc.documents.delete.mutationOptions({
      onSuccess: (result) => {
        if (result.deleted) router.push("/documents");
      },
    }),
  );
  function chooseAvailability(availability: Availability) {
    setChosenAvailability(availability);
    setAvailability.mutate({ id, availability });
  }
  return { announcement, save, setAvailability, chosenAvailability, chooseAvailability, remove };
}
