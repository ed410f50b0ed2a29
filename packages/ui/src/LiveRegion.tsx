"use client";

import { useEffect, useState, type ReactNode } from "react";
import { Notice } from "./Notice";

export interface LiveRegionProps {
  /**
   * `polite` (a `status`: read when the reader is idle) for what went well or is under way;
   * `assertive` for a slot that only ever holds an error that needs attention now.
   */
  politeness?: "polite" | "assertive";
  /** A success message from `useAnnouncement`, shown as a success notice while it lasts. */
  announcement?: string | null;
  className?: string;
  children?: ReactNode;
}

/**
 * A region screen readers announce when its content changes. It is rendered before there is
 * anything to say (a region that appears together with its text is often not read out), and
 * what changes goes inside it.
 */
export function LiveRegion({ politeness = "polite", announcement, className, children }: LiveRegionProps) {
  return (
    <div role={politeness === "polite" ? "status" : undefined} aria-live={politeness} className={className}>
      {announcement ? <Notice tone="success">{announcement}</Notice> : null}
      {children}
    </div>
  );
}

/** A success message for a `LiveRegion` that clears itself after six seconds. */
export function useAnnouncement(): [string, (text: string) => void] {
  const [announcement, setAnnouncement] = useState("");
  useEffect(() => {
    if (!announcement) return;
    const timer = window.setTimeout(() => setAnnouncement(""), 6000);
    return () => window.clearTimeout(timer);
  }, [announcement]);
  return [announcement, setAnnouncement];
}
