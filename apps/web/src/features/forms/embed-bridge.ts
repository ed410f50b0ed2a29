/**
 * Messages between an embedded form and the page that frames it. The form tells the host what
 * happened (never a field value, never a credential) and posts only to the origins its session
 * allows, one targeted postMessage each: the browser delivers it only if the host is that origin.
 * From the host it accepts a language change, and only from those origins.
 */

export type EmbedEvent =
  | { type: "ready" }
  | { type: "resized"; height: number }
  | { type: "draftSaved"; savedAt: string }
  | { type: "submitted"; submissionId: string }
  | { type: "closed" }
  | { type: "error"; code: "session_ended" | "unavailable" | "load_failed" };

export const FORM_MESSAGE_SOURCE = "clinsign-form";
export const HOST_MESSAGE_SOURCE = "clinsign-host";

export interface EmbedBridge {
  post(event: EmbedEvent): void;
  /**
   * Starts reporting the height of `content` (the form's own box), growing and shrinking with it;
   * returns the stop function. Not the document's: <body> is at least the viewport tall, and inside
   * an iframe the viewport is the iframe, so the document never reports less than the frame's
   * current height and a frame sized to a long form would never shrink to the thank-you card.
   */
  reportHeight(content: Element): () => void;
  onHostLanguage(handler: (lang: string) => void): () => void;
}

export function createEmbedBridge(allowedOrigins: readonly string[], target: Window = window.parent): EmbedBridge {
  const framed = target !== window;
  const post = (event: EmbedEvent) => {
    if (!framed) return;
    for (const origin of allowedOrigins)
      target.postMessage({ source: FORM_MESSAGE_SOURCE, version: 1, ...event }, origin);
  };
  return {
    post,
    reportHeight(content) {
      if (!framed) return () => {};
      let last = 0;
      const measure = () => {
        const height = Math.ceil(content.getBoundingClientRect().height);
        if (height !== last) {
          last = height;
          post({ type: "resized", height });
        }
      };
      const observer = new ResizeObserver(measure);
      observer.observe(content);
      measure();
      return () => observer.disconnect();
    },
    onHostLanguage(handler) {
      const listener = (event: MessageEvent) => {
        if (event.source !== target || !allowedOrigins.includes(event.origin)) return;
        const data = event.data as { source?: unknown; type?: unknown; lang?: unknown } | null;
        if (data?.source === HOST_MESSAGE_SOURCE && data.type === "setLanguage" && typeof data.lang === "string")
          handler(data.lang);
      };
      window.addEventListener("message", listener);
      return () => window.removeEventListener("message", listener);
    },
  };
}
