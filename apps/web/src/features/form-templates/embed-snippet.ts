// What the embed cards share: the snippet a clinic pastes, and reading a list typed into a field.

/** The snippet a website pastes: the iframe with the form's page, and the sizing script. */
export function embedSnippet(embedUrl: string, title: string): string {
  const origin = new URL(embedUrl).origin;
  const safeTitle = title.replace(/[<>&"]/g, "");
  return `<iframe src="${embedUrl}" data-clinsign-form title="${safeTitle}" style="width:100%;border:0"></iframe><script src="${origin}/embed.js" async></script>`;
}

/** What a field takes several of (origins, e-mail addresses), as typed: one per line or comma-separated, blanks dropped. */
export const typedList = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
