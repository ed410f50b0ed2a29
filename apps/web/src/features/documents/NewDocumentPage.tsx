"use client";

import { PageHeader } from "../../components/PageHeader";
import { useI18n } from "../../i18n/I18nProvider";
import { RegisterByUrlCard, UploadDocumentCard } from "./NewDocumentSections";
import { useDocumentUpload } from "./useDocumentUpload";

/**
 * Adding a document: upload a PDF (shown with pdf.js right away, fields drawn on it before
 * anything is sent), or register one by URL as A6 does. Either way it arrives as a new document
 * whose page says what to do next.
 */
export function NewDocumentPage() {
  const d = useI18n().t.documentsPage;
  const upload = useDocumentUpload();
  return (
    <>
      <PageHeader title={d.newTitle} description={d.newDescription} />
      <div className="cs-stack cs-stack--lg">
        <UploadDocumentCard
          form={upload.form}
          onChoose={(event) => void upload.choose(event)}
          onEdit={(change) => upload.dispatch({ type: "edit", change })}
          onSubmit={upload.create}
        />
        <RegisterByUrlCard />
      </div>
    </>
  );
}
