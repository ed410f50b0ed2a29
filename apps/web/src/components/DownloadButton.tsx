"use client";

import { Button, Notice, type ButtonVariant } from "@clinsign/ui";
import { useState } from "react";
import { format } from "../i18n";
import { useI18n } from "../i18n/I18nProvider";

type Progress =
  | { phase: "idle" }
  | { phase: "loading"; received: number; total: number | null }
  | { phase: "done" }
  | { phase: "failed"; status: number | null };

function formatSize(bytes: number, locale: string): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** The file name the server gave (Content-Disposition), else the fallback. */
function fileNameOf(response: Response, fallback: string): string {
  const header = response.headers.get("content-disposition") ?? "";
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star?.[1]) return decodeURIComponent(star[1]);
  return /filename="?([^";]+)"?/i.exec(header)?.[1] ?? fallback;
}

/**
 * A download that shows it is under way: the button is busy, and a live status counts what has
 * arrived (a share of the whole when the server says its length), then "Downloaded." A plain
 * `<a download>` gives no sign in the page until the browser's own download bar appears.
 */
export function DownloadButton({
  href,
  fileName,
  children,
  variant = "secondary",
}: {
  href: string;
  fileName: string;
  children: string;
  variant?: ButtonVariant;
}) {
  const { t, locale } = useI18n();
  const [progress, setProgress] = useState<Progress>({ phase: "idle" });

  async function start() {
    setProgress({ phase: "loading", received: 0, total: null });
    try {
      const response = await fetch(href, { credentials: "same-origin" });
      if (!response.ok || !response.body) {
        setProgress({ phase: "failed", status: response.status });
        return;
      }
      const length = Number(response.headers.get("content-length"));
      const total = Number.isFinite(length) && length > 0 ? length : null;
      const reader = response.body.getReader();
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        received += value.byteLength;
        setProgress({ phase: "loading", received, total });
      }
      const url = URL.createObjectURL(
        new Blob(chunks, { type: response.headers.get("content-type") ?? "application/octet-stream" }),
      );
      const link = document.createElement("a");
      link.href = url;
      link.download = fileNameOf(response, fileName);
      link.rel = "noopener";
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setProgress({ phase: "done" });
    } catch {
      setProgress({ phase: "failed", status: null });
    }
  }

  const status =
    progress.phase === "loading"
      ? progress.total
        ? format(t.common.downloadingPercent, {
            percent: Math.min(100, Math.round((progress.received / progress.total) * 100)),
          })
        : progress.received > 0
          ? format(t.common.downloadingSize, { size: formatSize(progress.received, locale) })
          : t.common.downloading
      : progress.phase === "done"
        ? t.common.downloaded
        : null;
  return (
    <span className="cs-stack">
      <Button variant={variant} onClick={() => void start()} busy={progress.phase === "loading"}>
        {children}
      </Button>
      <span role="status" aria-live="polite" className="cs-hint" data-testid="download-status">
        {status}
      </span>
      {progress.phase === "failed" ? (
        <Notice tone="danger" role="alert">
          {progress.status === null
            ? t.errors.network
            : progress.status === 403
              ? t.errors.forbidden
              : t.errors.generic}
        </Notice>
      ) : null}
    </span>
  );
}
