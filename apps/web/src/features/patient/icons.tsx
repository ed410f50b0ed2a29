import type { ReactNode } from "react";

/** The state screens' icons (decorative: the heading says what happened). */

function Svg({ children }: { children: ReactNode }) {
  return (
    <svg
      viewBox="0 0 24 24"
      width="28"
      height="28"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      focusable="false"
    >
      {children}
    </svg>
  );
}

export function CheckIcon() {
  return (
    <Svg>
      <path d="M20 6L9 17l-5-5" />
    </Svg>
  );
}
export function CrossIcon() {
  return (
    <Svg>
      <path d="M18 6L6 18M6 6l12 12" />
    </Svg>
  );
}
export function ClockIcon() {
  return (
    <Svg>
      <circle cx="12" cy="12" r="10" />
      <path d="M12 6v6l4 2" />
    </Svg>
  );
}
export function PauseIcon() {
  return (
    <Svg>
      <circle cx="12" cy="12" r="10" />
      <path d="M10 9v6M14 9v6" />
    </Svg>
  );
}
export function LockIcon() {
  return (
    <Svg>
      <rect x="4" y="11" width="16" height="10" rx="2" />
      <path d="M8 11V7a4 4 0 0 1 8 0v4" />
    </Svg>
  );
}
export function LinkIcon() {
  return (
    <Svg>
      <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />
      <path d="M3 3l18 18" />
    </Svg>
  );
}
export function DownloadIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      className="cs-icon"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M12 3v12M7 10l5 5 5-5M5 21h14" />
    </svg>
  );
}
/** A phone or tablet: something is kept on this device. */
export function DeviceIcon() {
  return (
    <Svg>
      <rect x="6" y="2" width="12" height="20" rx="2" />
      <path d="M11 18h2" />
    </Svg>
  );
}
