import styles from "./Logo.module.css";

/** The product mark (a pen stroke in a rounded square) and name. */
export function Logo({ name, size = "medium" }: { name: string; size?: "medium" | "large" }) {
  return (
    <span className={size === "large" ? `${styles.logo} ${styles.large}` : styles.logo}>
      <svg viewBox="0 0 32 32" className={styles.mark} aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="8" fill="currentColor" />
        <path
          d="M8 21c3-6 5-9 6.5-9 2.5 0-1.5 8 1 8 1.3 0 2-2.5 3.3-2.5S20 20 22 20h2"
          fill="none"
          stroke="#fff"
          strokeWidth="2.2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
        <path d="M8 24.5h16" stroke="#fff" strokeOpacity="0.7" strokeWidth="1.6" strokeLinecap="round" />
      </svg>
      <span className={styles.name}>{name}</span>
    </span>
  );
}
