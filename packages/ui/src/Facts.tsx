import type { HTMLAttributes, ReactNode } from "react";
import { cx } from "./cx";

export interface FactsProps {
  /** `table`: terms beside their values (one column on a phone); `stacked`: each term above its value. */
  layout?: "table" | "stacked";
  className?: string;
  children: ReactNode;
}

/**
 * A record's facts as a description list: status, patient, document, when. One look for every
 * detail page of the console; children are `Fact`s (or fragments of them, for facts shown only
 * sometimes).
 */
export function Facts({ layout = "table", className, children }: FactsProps) {
  return <dl className={cx("cs-facts", layout === "stacked" && "cs-facts--stacked", className)}>{children}</dl>;
}

/** A term and its value; the other attributes (`className`, e.g. `cs-mono`, a test id) go on the value. */
export interface FactProps extends HTMLAttributes<HTMLElement> {
  term: ReactNode;
  children: ReactNode;
}

export function Fact({ term, children, ...value }: FactProps) {
  return (
    <>
      <dt>{term}</dt>
      <dd {...value}>{children}</dd>
    </>
  );
}
