"use client";

import type { Template } from "@clinsign/contracts";
import { Card, Notice } from "@clinsign/ui";
import { useI18n } from "../../i18n/I18nProvider";
import { PersonalLinks } from "./PersonalLinks";
import { PublicEmbedCard } from "./PublicEmbedCard";

/**
 * The two ways a form reaches patients besides SMS, kept apart on purpose: the public embed on
 * the clinic's website (anyone, each visitor with a form of their own) and a personal link for
 * one known patient.
 */
export function EmbedPanel({ template }: { template: Template }) {
  const { t } = useI18n();
  const e = t.formTemplates.embed;
  if (template.status !== "active") {
    return (
      <Card title={e.title} description={e.description}>
        <Notice tone="info">{e.onlyActive}</Notice>
      </Card>
    );
  }
  return (
    <>
      <PublicEmbedCard template={template} />
      <PersonalLinks template={template} />
    </>
  );
}
