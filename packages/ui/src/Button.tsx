import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";
import { cx } from "./cx";

export type ButtonVariant = "primary" | "secondary" | "danger" | "danger-outline" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "medium" | "small";
  /** Icon-only button: give it an `aria-label`. */
  iconOnly?: boolean;
  block?: boolean;
  /** While a mutation runs: disabled, `aria-busy`, and a spinner before the label. */
  busy?: boolean;
  icon?: ReactNode;
  ref?: Ref<HTMLButtonElement>;
}

export function Button({
  variant = "secondary",
  size = "medium",
  iconOnly = false,
  block = false,
  busy = false,
  icon,
  type = "button",
  disabled,
  className,
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      type={type}
      className={cx(
        "cs-button",
        `cs-button--${variant}`,
        size === "small" && "cs-button--small",
        iconOnly && "cs-button--icon",
        block && "cs-button--block",
        className,
      )}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy ? <span className="cs-spinner" aria-hidden="true" /> : icon}
      {children}
    </button>
  );
}
