"use client";

import { Button } from "@clinsign/ui";
import { PdfPages, type PdfPageGeometry } from "@clinsign/ui/pdf-pages";
import { useId } from "react";
import { fieldHandleText, fieldName, type EditorField, type FieldEditorLabels } from "./editor-fields";
import { drawPreview } from "./field-editor-state";
import { toDisplay } from "./field-geometry";
import { PageSurface, PlacedField, Positioned } from "./FieldPageOverlay";
import { FieldListPanel } from "./FieldListPanel";
import { useFieldPlacement } from "./useFieldPlacement";
import styles from "./field-editor.module.css";

/** pdf.js's fonts and decoders, served by this app (app/(patient)/sign/pdfjs). */
const PDFJS_ASSETS = "/sign/pdfjs/";

export interface FieldPlacementEditorProps {
  /** The PDF: a chosen file before upload, or a stored version. */
  data: Uint8Array;
  fields: readonly EditorField[];
  onChange(fields: EditorField[]): void;
  labels: FieldEditorLabels;
}

/**
 * Places signature fields on a PDF: draw one with the mouse or a finger (touch drawing is switched
 * on explicitly, so a finger still scrolls the document), move it by dragging, resize it by its
 * corner, and nudge or resize it with the keyboard. The numbers beside the pages are the stored
 * values (PDF points, top-left origin, page from 1) and are editable; every change is clamped so
 * no field can leave its page.
 */
export function FieldPlacementEditor({ data, fields, onChange, labels }: FieldPlacementEditorProps) {
  const editor = useFieldPlacement(fields, onChange, labels);
  const helpId = useId();

  function overlay(page: PdfPageGeometry) {
    const onPage = fields.map((field, index) => ({ field, index })).filter((entry) => entry.field.page === page.number);
    const preview = drawPreview(editor.drag, page.number);
    return (
      <PageSurface
        page={page}
        onGeometry={editor.setGeometry}
        drawing={editor.touchDraw}
        {...editor.surfacePointer(page)}
      >
        {onPage.map(({ field, index }) => (
          <PlacedField
            key={index}
            field={field}
            box={toDisplay(field, page)}
            selected={editor.selected === index}
            handleText={fieldHandleText(field, index, labels)}
            name={fieldName(field, index, labels)}
            describedBy={helpId}
            handleRef={(element) => editor.registerHandle(index, element)}
            onSelect={() => editor.dispatch({ type: "select", index })}
            onKeyDown={(event) => editor.onFieldKey(event, index)}
            onGrab={(kind, event) => editor.grab(kind, index, page, event)}
          />
        ))}
        {preview ? <Positioned box={preview} className={styles.drawPreview} /> : null}
      </PageSurface>
    );
  }

  return (
    <div className={styles.editor}>
      <div className={styles.pages}>
        <div className={styles.toolbar}>
          <p className="cs-hint">{labels.drawHint}</p>
          <Button
            size="small"
            variant={editor.touchDraw ? "primary" : "secondary"}
            aria-pressed={editor.touchDraw}
            onClick={() => editor.dispatch({ type: "toggleTouchDraw" })}
          >
            {editor.touchDraw ? labels.touchDrawOn : labels.touchDraw}
          </Button>
        </div>
        <PdfPages
          data={data}
          labels={labels.pages}
          assetsUrl={PDFJS_ASSETS}
          pageOverlay={overlay}
          className={styles.document}
        />
      </div>
      <FieldListPanel
        labels={labels}
        helpId={helpId}
        fields={fields}
        geometry={editor.geometry}
        selected={editor.selected}
        typingRole={editor.typingRole}
        addPage={editor.addPage}
        full={editor.full}
        announcement={editor.announcement}
        onAddPage={(page) => editor.dispatch({ type: "chooseAddPage", page })}
        onAdd={editor.add}
        onTyping={(index, typing) => editor.dispatch({ type: "typeRole", index, typing })}
        onChange={editor.replace}
        onRemove={editor.remove}
      />
    </div>
  );
}
