"use client";

import dynamic from "next/dynamic";

/** The field editor, loaded with pdf.js only where a page shows it (once a file is chosen or stored). */
export const LazyFieldPlacementEditor = dynamic(
  () => import("./FieldPlacementEditor").then((m) => m.FieldPlacementEditor),
  { ssr: false },
);
