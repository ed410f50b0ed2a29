"use client";

import { useEffect, type RefObject } from "react";

/**
 * After the render that shows a form's messages, its first invalid control takes the focus.
 * `shown` is what shows them (the form's own errors, a submit count, the server's refusal): each
 * new value that is not empty focuses again. An effect, not a frame timer: a refusal from the
 * server reaches the page in a later render than the mutation's callback, on a slow device well
 * after the next frame.
 */
export function useFocusFirstInvalid(formRef: RefObject<HTMLElement | null>, shown: unknown): void {
  useEffect(() => {
    if (!shown) return;
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [formRef, shown]);
}
