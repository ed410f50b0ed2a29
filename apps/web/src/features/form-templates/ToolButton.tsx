"use client";

import { Button, type ButtonProps } from "@clinsign/ui";
import type { ReactNode } from "react";

/**
 * A small icon button of a row (a field in the field list, an option), named for its action and
 * the row ("Move up: Name", "Remove option 2"); `title` shows the action alone on hover.
 */
export function ToolButton({
  label,
  children,
  ...button
}: { label: string; title: string; children: ReactNode } & Pick<ButtonProps, "id" | "disabled" | "onClick">) {
  return (
    <Button size="small" variant="ghost" iconOnly aria-label={label} {...button}>
      {children}
    </Button>
  );
}
