/**
 * What the access export's overview page (access-export-index.ts) is written with: escaping (every
 * value on the page passes through it), the language's texts and date format (`Page`), links to the
 * ZIP's files, and the markup of one entry.
 */
import type { PatientLanguage } from "@clinsign/contracts";
import type { ExportedFile, ExportedRecord, ExportedRecordKind } from "./access-export-manifest";
import { exportIntlLocales, exportText, type ExportTextKey } from "./access-export-texts";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Every value on the page passes here: stored values are whatever a form or a caller typed. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A ZIP path as a relative link; each segment percent-encoded so no name can leave the attribute. */
const href = (path: string) => path.split("/").map(encodeURIComponent).join("/");

export type Row = Record<string, unknown>;
export const str = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
export const dateOf = (value: unknown): Date | null => {
  if (!(value instanceof Date) && typeof value !== "string") return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
};

/** What the page is written with: the language's texts and date format, and the records' files. */
export class Page {
  private readonly dates: Intl.DateTimeFormat;
  private readonly filesByRecord = new Map<string, ExportedFile[]>();
  private readonly filesByPath: Map<string, ExportedFile>;

  constructor(
    readonly language: PatientLanguage,
    readonly timeZone: string,
    files: ExportedFile[],
  ) {
    this.dates = new Intl.DateTimeFormat(exportIntlLocales[language], {
      dateStyle: "long",
      timeStyle: "short",
      timeZone,
    });
    for (const file of files) {
      if (!file.record) continue;
      const key = `${file.record.kind}:${file.record.id}`;
      this.filesByRecord.set(key, [...(this.filesByRecord.get(key) ?? []), file]);
    }
    this.filesByPath = new Map(files.map((f) => [f.path, f]));
  }

  /** A text with its `{placeholders}` filled by HTML made here (the text itself is escaped). */
  t(key: ExportTextKey, values: Record<string, string> = {}): string {
    return exportText(this.language, key)
      .split(/(\{\w+\})/)
      .map((part) => {
        const name = /^\{(\w+)\}$/.exec(part)?.[1];
        return name !== undefined && name in values ? values[name]! : escapeHtml(part);
      })
      .join("");
  }

  /** A stored value as text, isolated from the sentence around it. */
  value(text: string): string {
    return `<bdi>${escapeHtml(text)}</bdi>`;
  }

  date(at: Date): string {
    return `<time datetime="${at.toISOString()}">${escapeHtml(this.dates.format(at))}</time>`;
  }

  /** "Signed by you on {date}." with the date filled in, or nothing when the date is unknown. */
  dated(key: ExportTextKey, at: unknown): string | null {
    const when = dateOf(at);
    return when ? this.t(key, { date: this.date(when) }) : null;
  }

  filesOf(kind: ExportedRecordKind, id: string): ExportedFile[] {
    return this.filesByRecord.get(`${kind}:${id}`) ?? [];
  }

  file(path: string): ExportedFile | undefined {
    return this.filesByPath.get(path);
  }

  link(file: ExportedFile | undefined, label: string): string | null {
    return file ? `<a href="${href(file.path)}">${label}</a>` : null;
  }
}

/** One record on the page: a heading, lines of what happened, links, then what else it holds. */
export function entry(title: string, lines: (string | null)[], links: (string | null)[] = [], extra = ""): string {
  const shownLinks = links.filter((l): l is string => l !== null);
  return `<li class="entry"><h3>${title}</h3>${lines
    .filter((l): l is string => l !== null)
    .map((l) => `<p>${l}</p>`)
    .join(
      "",
    )}${shownLinks.length ? `<ul class="links">${shownLinks.map((l) => `<li>${l}</li>`).join("")}</ul>` : ""}${extra}</li>`;
}

export const newestFirst = (at: (r: ExportedRecord) => unknown) => (a: ExportedRecord, b: ExportedRecord) =>
  (dateOf(at(b))?.getTime() ?? 0) - (dateOf(at(a))?.getTime() ?? 0);
