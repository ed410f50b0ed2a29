/** Only http(s) redirects are followed: a `javascript:` URL must never run on our page. */
export function safeRedirect(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Opens the redirect as a top-level navigation (the whole tab, not the iframe). */
export function navigateTop(url: string) {
  try {
    if (window.top && window.top !== window) window.top.location.href = url;
    else window.location.assign(url);
  } catch {
    // The browser refused a top navigation from the frame; the Continue link below still works.
  }
}
