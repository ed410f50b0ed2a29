"use client";

/**
 * The last resort when the root layout itself fails: a plain page in both languages (no
 * providers are available here). Smaller than Next's built-in one, which every page ships.
 */
export default function GlobalError({ reset }: { error: Error; reset(): void }) {
  return (
    <html lang="en">
      <body>
        <main>
          <h1>Something went wrong · Etwas ist schiefgelaufen</h1>
          <p>Please try again. · Bitte versuchen Sie es erneut.</p>
          <button type="button" onClick={reset}>
            Try again · Erneut versuchen
          </button>
        </main>
      </body>
    </html>
  );
}
