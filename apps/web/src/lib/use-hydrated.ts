import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False while the server renders and the page hydrates, true after: for what only the browser
 * knows (its clock, its time zone), so the server's HTML and the first client render agree.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
