/**
 * The geometry of fields on PDF pages, without pdf.js or React: shared by the page viewer and
 * the documents field editor.
 */

/** A rectangle on a page in PDF points, origin at the top-left corner, `page` counted from 1. */
export interface PdfFieldRect {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A field as the page viewer shows it: a field to sign (outlined, with its own tag), or another
 * signer's signature already made (the image or typed name placed in the field, with a caption).
 */
export interface PdfShownField extends PdfFieldRect {
  /** The field's tag instead of the viewer's `labels.field` ("Sign here: Patient"). */
  label?: string;
  /** Set for a signature already made: shown in the field instead of the outline. */
  signed?: { image: string; alt: string } | { text: string; alt: string };
}

/**
 * A field rectangle as fractions of the displayed page, for the page's /Rotate (0, 90, 180, 270).
 * Field coordinates are given on the unrotated page, whose size is `width` × `height` points.
 */
export function fieldBox(field: PdfFieldRect, width: number, height: number, rotate: number) {
  const fx = field.x / width;
  const fy = field.y / height;
  const fw = field.width / width;
  const fh = field.height / height;
  switch (((rotate % 360) + 360) % 360) {
    case 90:
      return { left: 1 - (fy + fh), top: fx, width: fh, height: fw };
    case 180:
      return { left: 1 - (fx + fw), top: 1 - (fy + fh), width: fw, height: fh };
    case 270:
      return { left: fy, top: 1 - (fx + fw), width: fh, height: fw };
    default:
      return { left: fx, top: fy, width: fw, height: fh };
  }
}
