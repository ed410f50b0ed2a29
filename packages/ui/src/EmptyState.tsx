import type { ReactNode } from "react";
import { Icon, type IconName } from "./Icon";

export interface EmptyStateProps {
  icon?: IconName;
  title: ReactNode;
  description?: ReactNode;
  action?: ReactNode;
  /** Heading level of the title (default 2; 1 when the empty state is the whole page). */
  level?: 1 | 2 | 3;
}

export function EmptyState({ icon = "inbox", title, description, action, level = 2 }: EmptyStateProps) {
  const Heading = (["h1", "h2", "h3"] as const)[level - 1] ?? "h2";
  return (
    <div className="cs-empty">
      <div className="cs-empty__icon">
        <Icon name={icon} />
      </div>
      <Heading>{title}</Heading>
      {description ? <p className="cs-empty__description">{description}</p> : null}
      {action ? <div className="cs-empty__action">{action}</div> : null}
    </div>
  );
}
