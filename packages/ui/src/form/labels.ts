import type { FieldProblem, FormField } from "@clinsign/contracts";
import type { SignaturePadLabels } from "../SignaturePad";
import type { FileKindLabels } from "./file-kinds";

/**
 * Every text the form renderer shows besides the template's own labels, in the page's
 * language. Problems arrive as codes with parameters (`too_long {max}`), so each page words them
 * in its language instead of translating English text.
 */
export interface FormRendererLabels {
  /** Shown once above the fields: what the asterisk means. */
  requiredNote: string;
  /** Read after a required field's label by screen readers (the asterisk is hidden from them). */
  requiredMark: string;
  /** Visible after optional fields' labels. */
  optional: string;
  selectPlaceholder: string;
  errorSummaryTitle: string;
  problem(problem: FieldProblem, field: FormField): string;
  file: {
    choose: string;
    chooseMore: string;
    remove: string;
    /** `{name}` of the file being sent. */
    uploading: string;
    uploadFailed: string;
    /** `{types}`, `{size}`: what the field accepts; `{types}` in words (`kinds`), never MIME types. */
    accepts: string;
    kinds: FileKindLabels;
    maxSize: string;
    listLabel: string;
  };
  signature: SignaturePadLabels & {
    hint: string;
    drawTab: string;
    typeTab: string;
    methodLegend: string;
    typedLabel: string;
    signed: string;
    signAgain: string;
  };
  /** `{count}`, `{max}` under a text area with a length limit. */
  characterCount: string;
  /** A score field (read-only): `{score}` once complete, `{answered}` of `{total}` before. */
  score: { points: string; incomplete: string };
}
