import type { ReactNode } from "react";
import { Icon, type IconName } from "./Icon";

export type NoticeTone = "info" | "warning" | "danger" | "success";

const icons: Record<NoticeTone, IconName> = { info: "info", warning: "alert", danger: "alert", success: "check" };

export interface NoticeProps {
  tone?: NoticeTone;
  title?: ReactNode;
  children?: ReactNode;
  /** `alert` for errors that need attention now; leave unset for static notices. */
  role?: "alert" | "status";
}

/** A coloured message box for warnings, errors and confirmations. */
export function Notice({ tone = "info", title, children, role }: NoticeProps) {
  return (
    <div className={`cs-notice cs-notice--${tone}`} role={role}>
      <Icon name={icons[tone]} />
      <div className="cs-notice__body">
        {title ? <p className="cs-notice__title">{title}</p> : null}
        {children ? <div>{children}</div> : null}
      </div>
    </div>
  );
}
