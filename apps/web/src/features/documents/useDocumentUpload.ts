"use client";

import { useRouter } from "next/navigation";
import { useReducer, type ChangeEvent, type FormEvent } from "react";
import { useLeaveGuard } from "../../components/useLeaveGuard";
import { useI18n } from "../../i18n/I18nProvider";
import { uploadDocument, UploadError } from "./upload";
import { initialUploadForm, looksLikePdf, MAX_PDF_BYTES, uploadFormReducer } from "./upload-form";

/**
 * The upload form's behaviour: a chosen file is checked (size, PDF) and read before anything is
 * sent; create uploads it with its name, description, language and fields, then opens the new
 * document. Leaving with a chosen file asks first.
 */
export function useDocumentUpload() {
  const { t } = useI18n();
  const d = t.documentsPage;
  const router = useRouter();
  const [form, dispatch] = useReducer(uploadFormReducer, initialUploadForm);
  useLeaveGuard(form.file !== null && !form.uploading, d.leaveWarning);

  async function choose(event: ChangeEvent<HTMLInputElement>) {
    const chosen = event.target.files?.[0];
    dispatch({ type: "choosing" });
    if (!chosen) return;
    if (chosen.size > MAX_PDF_BYTES) return dispatch({ type: "fileRefused", error: d.fileTooLarge });
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    if (!looksLikePdf(bytes)) return dispatch({ type: "fileRefused", error: d.notPdf });
    dispatch({ type: "fileChosen", file: { bytes, name: chosen.name } });
  }

  async function create(event: FormEvent) {
    event.preventDefault();
    dispatch({ type: "submitted" });
    const { file, name, description, fields, language } = form;
    if (!file || !name.trim() || fields.length === 0) return;
    dispatch({ type: "uploading" });
    try {
      const created = await uploadDocument(file, {
        document_name: name.trim(),
        document_description: description.trim() || null,
        signingfield_koordinates: fields,
        ...(language && { language }),
      });
      router.push(`/documents/${created.id}?created=1`);
    } catch (error) {
      dispatch({
        type: "uploadFailed",
        error:
          error instanceof UploadError ? { message: error.message, field: error.field } : { message: t.errors.network },
      });
    }
  }

  return { form, dispatch, choose, create };
}
