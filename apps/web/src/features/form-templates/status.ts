import type { Template } from "@clinsign/contracts";
import type { Dictionary } from "../../i18n";

export const statusLabel = (status: Template["status"], t: Dictionary) =>
  ({
    draft: t.formTemplates.statusDraft,
    active: t.formTemplates.statusActive,
    archived: t.formTemplates.statusArchived,
  })[status];

export const statusHelp = (status: Template["status"], t: Dictionary) =>
  ({
    draft: t.formTemplates.statusHelpDraft,
    active: t.formTemplates.statusHelpActive,
    archived: t.formTemplates.statusHelpArchived,
  })[status];
