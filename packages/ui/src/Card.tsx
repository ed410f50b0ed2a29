import type { HTMLAttributes, ReactNode } from "react";
import { cx } from "./cx";

export interface CardProps extends Omit<HTMLAttributes<HTMLElement>, "title"> {
  title?: ReactNode;
  description?: ReactNode;
  /** Buttons shown at the right of the title. */
  actions?: ReactNode;
  footer?: ReactNode;
  /** Heading level of the title (default 2). */
  level?: 2 | 3;
  /** Leave out the body padding (tables that run to the card's edges). */
  flush?: boolean;
}

/** A white surface with an optional titled header and a footer for actions. */
export function Card({
  title,
  description,
  actions,
  footer,
  level = 2,
  flush,
  className,
  children,
  ...rest
}: CardProps) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section className={cx("cs-card", className)} {...rest}>
      {title || actions ? (
        <div className="cs-card__header">
          <div className="cs-card__heading">
            {title ? <Heading>{title}</Heading> : null}
            {description ? <p className="cs-card__description">{description}</p> : null}
          </div>
          {actions ? <div className="cs-row">{actions}</div> : null}
        </div>
      ) : null}
      {children !== undefined && children !== null ? (
        <div className={flush ? undefined : "cs-card__body"}>{children}</div>
      ) : null}
      {footer ? <div className="cs-card__footer">{footer}</div> : null}
    </section>
  );
}
