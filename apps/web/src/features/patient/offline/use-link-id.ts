"use client";

import { useEffect, useState } from "react";
import { heldStorageAvailable, linkId } from "./held";

/** A link's id on this device (the SHA-256 of its credential, see held.ts), once computed; null without a credential. */
export function useLinkId(credential: string | null): string | null {
  const [link, setLink] = useState<string | null>(null);
  useEffect(() => {
    let active = true;
    setLink(null);
    if (credential && heldStorageAvailable()) void linkId(credential).then((id) => active && setLink(id));
    return () => {
      active = false;
    };
  }, [credential]);
  return link;
}
