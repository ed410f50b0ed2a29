// The audit page a seal appends: who signed, when, from where, the hashes before and after
// stamping, in the signer's language with the clinic's beside each label (seal-pdf.ts calls it).
import type { PDFDocument, PDFPage } from "pdf-lib";
import { languageEndonyms, type PatientLanguage } from "@clinsign/contracts/language-list";
import type { SigningOrder } from "@clinsign/contracts";
import { PageText, type Rgb } from "../pdf-worker/page-text";
import { PdfFonts, type FontRole, type TextDirection } from "../pdf-worker/pdf-text";
import { auditPageTexts, fill, rightToLeft, roleName, statusName, type AuditPageTexts } from "./audit-page-texts";

/** What the audit page says of one sealed signature request. */
export interface AuditPageFacts {
  title: string;
  signatureId: string;
  documentId: string;
  version: number;
  /** The document version's language (issue 19), named on the page when set. */
  documentLanguage?: PatientLanguage | null;
  /** Who signed: the one patient (typed name or drawn), or several signers (rows in `signers`). */
  signature:
    { kind: "typed"; name: string } | { kind: "drawn" } | { kind: "several"; count: number; order: SigningOrder };
  patientId: string;
  institutionId: string;
  orderBy: string;
  createdAt: Date;
  openedAt: Date | null;
  /** When the signature arrived (the trusted signing time). */
  signedAt: Date;
  /** Signed offline: the device's time of the signature, a claim beside the arrival. */
  signedOnDeviceAt?: Date | null;
  ip: string | null;
  userAgent: string | null;
  originalSha256: string;
  stampedSha256: string;
  certificate: string;
  development: boolean;
  /** The time stamp authority's host (the time stamp is made after this page is drawn); null: none. */
  tsaHost: string | null;
  /** The page's language: the one the patient signed in (audit-page-texts.ts). */
  language: PatientLanguage;
  /** The organization's language, beside each label when it differs. */
  clinicLanguage: PatientLanguage;
  /** Several signers: every signer, in signing order (replaces the one signer's time and address). */
  signers?: AuditPageSigner[];
}

/** One signer on the audit page. */
export interface AuditPageSigner {
  role: string;
  /** The name where known (a link signer's as staff entered it, a staff user's, a typed name). */
  name: string | null;
  status: string;
  method: string | null;
  signedAt: Date | null;
  signedOnDeviceAt?: Date | null;
  ip: string | null;
  userAgent: string | null;
}

const A4: [number, number] = [595.28, 841.89];
const GREY: Rgb = [0.3, 0.3, 0.3];
const LIGHT: Rgb = [0.45, 0.45, 0.45];

/** A label in the page's language, and in the clinic's beside it. */
type Label = (texts: AuditPageTexts) => string;
/** One row of the audit page: its label, its value and the value's font (regular when absent). */
type AuditRow = [Label, string, FontRole?];

const iso = (date: Date | null) => date?.toISOString() ?? "-";

/** The signer rows: each of several signers in signing order, or the one patient's name, time, address and browser. */
function signerRowsOf(facts: AuditPageFacts, t: AuditPageTexts): AuditRow[] {
  if (facts.signers)
    return facts.signers.map((signer, i) => [
      (texts) => fill(texts.signerN, { n: i + 1, role: roleName(texts, signer.role) }),
      signer.signedAt
        ? [
            signer.name ?? "-",
            signer.method === "typed" ? t.typedName : t.handwritten,
            fill(t.signedAtIp, { time: iso(signer.signedAt), ip: signer.ip ?? "-" }),
            ...(signer.signedOnDeviceAt ? [fill(t.offlineSigner, { device: iso(signer.signedOnDeviceAt) })] : []),
            signer.userAgent ?? "-",
          ].join("; ")
        : `${signer.name ?? "-"}; ${fill(t.notSigned, { status: statusName(t, signer.status) })}`,
    ]);
  const signature = facts.signature;
  const offline: AuditRow[] = facts.signedOnDeviceAt
    ? [
        [
          (texts) => texts.signedOffline,
          fill(t.offlineTimes, { device: iso(facts.signedOnDeviceAt), received: iso(facts.signedAt) }),
        ],
      ]
    : [];
  return [
    [
      (texts) => texts.signer,
      signature.kind === "typed"
        ? fill(t.typedSigner, { name: signature.name })
        : fill(t.drawnSigner, { id: facts.patientId }),
    ],
    [(texts) => texts.signed, iso(facts.signedAt)],
    ...offline,
    [(texts) => texts.ipAddress, facts.ip ?? "-"],
    [(texts) => texts.userAgent, facts.userAgent ?? "-"],
  ];
}

/** The audit page's rows in order: the document, the request, the signer(s), the hashes, the seal. */
function auditPageRows(facts: AuditPageFacts, t: AuditPageTexts): AuditRow[] {
  const signature = facts.signature;
  const signerRows = signerRowsOf(facts, t);
  const several: AuditRow[] =
    signature.kind === "several"
      ? [[(texts) => texts.signer, fill(t.severalSigners, { n: signature.count, order: t.order[signature.order] })]]
      : [];
  const documentLanguage: AuditRow[] = facts.documentLanguage
    ? [[(texts) => texts.documentLanguage, `${languageEndonyms[facts.documentLanguage]} (${facts.documentLanguage})`]]
    : [];
  return [
    [(texts) => texts.document, fill(t.titleVersion, { title: facts.title, version: facts.version })],
    [(texts) => texts.documentId, facts.documentId],
    ...documentLanguage,
    [(texts) => texts.signatureId, facts.signatureId],
    ...several,
    ...signerRows.slice(0, facts.signers ? 0 : 1),
    [(texts) => texts.patientId, facts.patientId],
    [(texts) => texts.institution, facts.institutionId],
    [(texts) => texts.orderedBy, facts.orderBy],
    [(texts) => texts.requested, iso(facts.createdAt)],
    [(texts) => texts.opened, iso(facts.openedAt)],
    ...signerRows.slice(facts.signers ? 0 : 1),
    [(texts) => texts.shaOriginal, facts.originalSha256, "mono"],
    [(texts) => texts.shaStamped, facts.stampedSha256, "mono"],
    [(texts) => texts.sealedWith, facts.certificate + (facts.development ? t.development : "")],
    [(texts) => texts.trustedTime, facts.tsaHost ? fill(t.tsa, { host: facts.tsaHost }) : t.noTsa],
  ];
}

const PAGE_LEFT = 56;
const PAGE_TOP = 780;

/** Lines down the audit page in its direction, continuing on another page when one is full. */
class AuditPageLayout {
  #text: PageText;
  #y = PAGE_TOP;
  readonly #width = A4[0] - 2 * PAGE_LEFT;

  constructor(
    private readonly doc: PDFDocument,
    page: PDFPage,
    private readonly fonts: PdfFonts,
    private readonly direction: TextDirection,
    private readonly clinicDirection: TextDirection,
  ) {
    this.#text = new PageText(page);
  }

  /** Several signers can fill more than a page: continue on another one (the seal's widget stays on the first). */
  room(needed: number) {
    if (this.#y - needed >= 48) return;
    this.#text.finish(this.doc);
    this.#text = new PageText(this.doc.addPage(A4));
    this.#y = PAGE_TOP;
  }

  down(by: number) {
    this.#y -= by;
  }

  wrap(value: string, role: FontRole, size: number) {
    return this.fonts.wrap(value, role, size, this.#width);
  }

  /**
   * One line at the start of the page's direction; returns it shaped. A left-to-right line is
   * placed without its width, which is measured only when read (pdf-text.ts).
   */
  line(value: string, role: FontRole, size: number, color?: Rgb, dir = this.direction, indent = 0) {
    const shaped = this.fonts.shape(value, role, dir);
    const x = this.direction === "rtl" ? PAGE_LEFT + this.#width - indent - shaped.width * size : PAGE_LEFT + indent;
    this.#text.write(shaped, { x, y: this.#y, size, ...(color && { color }) });
    return shaped;
  }

  /** A label, and the clinic's word for it after it (lighter, smaller). */
  label(own: string, clinicLabel: string | null, size: number, color?: Rgb) {
    const shaped = this.line(own, "bold", size, color);
    if (clinicLabel)
      this.line(clinicLabel, "bold", size * 0.8, LIGHT, this.clinicDirection, shaped.width * size + size);
  }

  finish() {
    this.#text.finish(this.doc);
  }
}

/**
 * Appends the audit page (who, when, from where, hashes before and after stamping); returns it.
 * Written in the signer's language (right to left for Arabic) with the clinic's language beside
 * each label; names and values in any script (pdf-text.ts).
 */
export async function drawAuditPage(doc: PDFDocument, facts: AuditPageFacts): Promise<PDFPage> {
  const t = auditPageTexts[facts.language];
  const clinic = facts.clinicLanguage === facts.language ? null : auditPageTexts[facts.clinicLanguage];
  const direction: TextDirection = rightToLeft(facts.language) ? "rtl" : "ltr";
  const clinicDirection: TextDirection = rightToLeft(facts.clinicLanguage) ? "rtl" : "ltr";
  const page = doc.addPage(A4);
  const rows = auditPageRows(facts, t);
  const labels = rows.map(([label]) => [label(t), clinic ? label(clinic) : null] as const);
  const fonts = await PdfFonts.embed(doc, [
    { role: "bold", texts: [t.title, clinic?.title ?? "", ...labels.flat().filter((label) => label !== null)] },
    {
      role: "regular",
      texts: [t.closing, clinic?.closing ?? "", ...rows.filter(([, , role]) => !role).map(([, value]) => value)],
    },
    { role: "mono", texts: rows.filter(([, , role]) => role === "mono").map(([, value]) => value) },
  ]);
  const layout = new AuditPageLayout(doc, page, fonts, direction, clinicDirection);
  layout.label(t.title, clinic?.title ?? null, 18);
  layout.down(28);
  rows.forEach(([, value, font], i) => {
    const role = font ?? "regular";
    const size = font ? 8.5 : 10;
    const lines = layout.wrap(value, role, size);
    layout.room(13 + lines.length * (size + 4));
    const [own, clinicLabel] = labels[i]!;
    layout.label(own, clinicLabel, 9, GREY);
    layout.down(13);
    for (const valueLine of lines) {
      layout.line(valueLine, role, size);
      layout.down(size + 4);
    }
    layout.down(6);
  });
  for (const [closing, dir] of [
    [t.closing, direction],
    ...(clinic ? [[clinic.closing, clinicDirection] as const] : []),
  ] as const) {
    layout.down(6);
    const lines = layout.wrap(closing, "regular", 8.5);
    layout.room(lines.length * 12 + 4);
    for (const closingLine of lines) {
      layout.line(closingLine, "regular", 8.5, [0.35, 0.35, 0.35], dir);
      layout.down(12);
    }
  }
  layout.finish();
  return page;
}
