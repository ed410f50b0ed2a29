import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { PageImages, type PageImagesSource } from "./PageImages";

afterEach(cleanup);

const images: PageImagesSource = {
  url: "/signing-pages/grant/abc",
  widths: [480, 800, 1200],
  pages: [
    { width: 595.28, height: 841.89, rotate: 0, heights: [679, 1131, 1697] },
    { width: 595.28, height: 841.89, rotate: 90, heights: [339, 566, 849] },
  ],
};
const labels = { page: (number: number, count: number) => `Page ${number} of ${count}`, field: "Sign here" };

describe("PageImages", () => {
  it("names every width in srcset, gives the size before the image arrives, and loads page 1 first", () => {
    render(<PageImages images={images} labels={labels} sizes="100vw" />);
    const first = screen.getByRole("figure", { name: "Page 1 of 2" }).querySelector("img")!;
    expect(first.getAttribute("src")).toBe("/signing-pages/grant/abc/1-480.webp");
    expect(first.getAttribute("srcset")).toBe(
      "/signing-pages/grant/abc/1-480.webp 480w, /signing-pages/grant/abc/1-800.webp 800w, /signing-pages/grant/abc/1-1200.webp 1200w",
    );
    expect(first.getAttribute("sizes")).toBe("100vw");
    expect([first.getAttribute("width"), first.getAttribute("height")]).toEqual(["1200", "1697"]);
    expect(first.getAttribute("loading")).toBe("eager");
    const second = screen.getByRole("figure", { name: "Page 2 of 2" }).querySelector("img")!;
    expect(second.getAttribute("loading")).toBe("lazy");
    expect([second.getAttribute("width"), second.getAttribute("height")]).toEqual(["1200", "849"]);
  });

  it("marks a page rendered once its image has loaded, and puts its text in for screen readers", () => {
    render(<PageImages images={images} labels={labels} sizes="100vw" texts={["Consent form", "Page two"]} />);
    const page = screen.getByRole("figure", { name: "Page 1 of 2" });
    expect(page.hasAttribute("data-rendered")).toBe(false);
    fireEvent.load(page.querySelector("img")!);
    expect(page.getAttribute("data-rendered")).toBe("true");
    expect(page.querySelector(".cs-visually-hidden")?.textContent).toBe("Consent form");
  });

  it("outlines each field on its own page, placed on the unrotated page's points", () => {
    render(
      <PageImages
        images={images}
        labels={labels}
        sizes="100vw"
        fields={[{ page: 2, x: 0, y: 0, width: 595.28 / 2, height: 841.89 / 4 }]}
      />,
    );
    expect(screen.getByRole("figure", { name: "Page 1 of 2" }).querySelector('[data-testid="pdf-field"]')).toBeNull();
    const field = screen
      .getByRole("figure", { name: "Page 2 of 2" })
      .querySelector<HTMLElement>('[data-testid="pdf-field"]')!;
    expect(field.textContent).toBe("Sign here");
    // Rotated 90°: the field's top-left corner lands at the displayed page's top right.
    expect(field.style.getPropertyValue("--cs-field-left")).toBe("75.0000%");
    expect(field.style.getPropertyValue("--cs-field-width")).toBe("25.0000%");
    expect(field.style.getPropertyValue("--cs-field-height")).toBe("50.0000%");
  });
});
