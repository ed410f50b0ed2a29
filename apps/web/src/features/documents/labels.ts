import type { Dictionary } from "../../i18n";
import { format } from "../../i18n";
import type { BuiltInSignerRole, DocumentListItem } from "@clinsign/contracts";
import type { BadgeTone } from "@clinsign/ui";
import type { FieldEditorLabels } from "./editor-fields";

type DocumentsTexts = Dictionary["documentsPage"];

/** The field editor's texts from the Documents section's dictionary (role names: the signing section's). */
export function fieldEditorLabels(d: DocumentsTexts, roles: Record<BuiltInSignerRole, string>): FieldEditorLabels {
  return {
    ...d.fieldEditor,
    roles,
    pages: {
      loading: d.pdfLoading,
      failed: d.pdfFailed,
      page: (number, count) => format(d.pdfPage, { number, count }),
      field: d.pdfField,
    },
  };
}

export const AVAILABILITIES = ["draft", "active", "inactive"] as const;

/** The badge colour of each availability, in the list and on a document's page. */
export const availabilityTone: Record<DocumentListItem["availability"], BadgeTone> = {
  draft: "neutral",
  active: "success",
  inactive: "warning",
};

/** Request statuses as the documents' counts name them (`sealing` includes a sealing that gave up). */
export const REQUEST_STATUSES = ["pending", "opened", "sealing", "completed", "declined", "expired"] as const;
