import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { PagesPlaceholder } from "./PagesPlaceholder";

afterEach(cleanup);

const page = (number: number, count: number) => `Page ${number} of ${count}`;

describe("PagesPlaceholder", () => {
  it("keeps a sheet of each page's size, with the drawn pages' captions, and says it is loading on the first", () => {
    const { container } = render(
      <PagesPlaceholder
        pageSizes={[
          { width: 595.28, height: 841.89 },
          { width: 612, height: 792 },
        ]}
        loading="Loading the document…"
        page={page}
      />,
    );
    const sheets = [...container.querySelectorAll<HTMLElement>("[data-placeholder-page]")];
    expect(sheets).toHaveLength(2);
    const frames = sheets.map((sheet) => sheet.firstElementChild as HTMLElement);
    expect(frames.map((frame) => frame.style.getPropertyValue("--cs-pdf-aspect"))).toEqual([
      "595.28 / 841.89",
      "612 / 792",
    ]);
    expect(sheets.map((sheet) => sheet.lastElementChild?.textContent)).toEqual(["Page 1 of 2", "Page 2 of 2"]);
    expect(screen.getByRole("status").textContent).toBe("Loading the document…");
    expect(frames[0]!.contains(screen.getByRole("status"))).toBe(true);
    expect(container.firstElementChild?.getAttribute("aria-busy")).toBe("true");
  });

  it("shows one sheet when the pages' sizes are not known", () => {
    const { container } = render(<PagesPlaceholder pageSizes={null} loading="Loading" page={page} />);
    expect(container.querySelectorAll("[data-placeholder-page]")).toHaveLength(0);
    expect(screen.getByRole("status").textContent).toBe("Loading");
  });
});
