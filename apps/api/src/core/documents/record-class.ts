import { storedKdlType, type DocumentRecordClass, type SetRecordClassInput } from "@clinsign/contracts";
import { documents, eq } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { findDocument } from "./documents";

/**
 * How the hospital files a document's sealed PDFs (issue 34): its KDL type and confidentiality,
 * which the FHIR push writes on the DocumentReference. Applies to every version, in each Bundle
 * built after the change; what was already built or delivered stays as it was sent.
 */
export function recordClassOf(doc: Pick<typeof documents.$inferSelect, "kdlType" | "confidentiality">) {
  return { kdlType: storedKdlType(doc.kdlType), confidentiality: doc.confidentiality } satisfies DocumentRecordClass;
}

/** Staff: sets the document's KDL type (null: the default) and confidentiality; audited when it changes. */
export async function setDocumentRecordClass(
  ctx: OrgContext,
  input: SetRecordClassInput,
): Promise<DocumentRecordClass & { id: string }> {
  return inTransaction(ctx, async (tx) => {
    const doc = await findDocument(tx, input.id, true);
    const from = recordClassOf(doc);
    const to = { kdlType: input.kdlType, confidentiality: input.confidentiality };
    if (from.kdlType !== to.kdlType || from.confidentiality !== to.confidentiality) {
      await tx.scope.update(documents, { ...to, updatedAt: new Date() }, eq(documents.id, doc.id));
      await recordAudit(tx, { action: "document.record_class_changed", metadata: { documentId: doc.id, from, to } });
    }
    return { id: doc.id, ...to };
  });
}
