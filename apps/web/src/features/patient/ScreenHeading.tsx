"use client";

import { useEffect, useRef, type ReactNode } from "react";
import styles from "./patient.module.css";

/**
 * The h1 of a portal screen. With `focus`, the heading takes focus when it appears: after the
 * patient signs or declines, keyboard and screen-reader users land on the new screen's content
 * (not on the first load, where the browser starts at the top anyway). Long words hyphenate in the
 * language of the nearest `lang` (the page's, or the form's own on a form).
 */
export function ScreenHeading({
  children,
  focus = false,
  className,
  dir,
}: {
  children: ReactNode;
  focus?: boolean;
  className?: string;
  /** "auto" for the clinic's own text (a document or form title): its language is not the page's. */
  dir?: "auto";
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return (
    <h1
      ref={ref}
      id="portal-heading"
      tabIndex={-1}
      className={className ? `${styles.screenHeading} ${className}` : styles.screenHeading}
      dir={dir}
    >
      {children}
    </h1>
  );
}
