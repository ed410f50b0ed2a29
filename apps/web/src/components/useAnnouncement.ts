"use client";

import { useEffect, useState } from "react";

/** A success message for the page's live region that clears itself after six seconds. */
export function useAnnouncement(): [string, (text: string) => void] {
  const [announcement, setAnnouncement] = useState("");
  useEffect(() => {
    if (!announcement) return;
    const timer = window.setTimeout(() => setAnnouncement(""), 6000);
    return () => window.clearTimeout(timer);
  }, [announcement]);
  return [announcement, setAnnouncement];
}
