import { act, cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Fact, Facts } from "./Facts";
import { LiveRegion, useAnnouncement } from "./LiveRegion";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function Saver() {
  const [announcement, announce] = useAnnouncement();
  return (
    <>
      <LiveRegion announcement={announcement} />
      <button onClick={() => announce("Settings saved.")}>Save</button>
    </>
  );
}

describe("LiveRegion", () => {
  it("is a polite status region before it has anything to say, and an assertive one holds no role", () => {
    const { container } = render(
      <>
        <LiveRegion />
        <LiveRegion politeness="assertive" />
      </>,
    );
    const [polite, assertive] = [container.children[0]!, container.children[1]!];
    expect(polite.getAttribute("role")).toBe("status");
    expect(polite.getAttribute("aria-live")).toBe("polite");
    expect(polite.textContent).toBe("");
    expect(assertive.getAttribute("aria-live")).toBe("assertive");
    expect(assertive.hasAttribute("role")).toBe(false);
  });

  it("shows an announcement inside the region that was already there, and clears it after six seconds", () => {
    vi.useFakeTimers();
    render(<Saver />);
    const region = screen.getByRole("status");
    act(() => screen.getByRole("button", { name: "Save" }).click());
    expect(region.textContent).toBe("Settings saved.");
    act(() => vi.advanceTimersByTime(5_900));
    expect(region.textContent).toBe("Settings saved.");
    act(() => vi.advanceTimersByTime(200));
    expect(region.textContent).toBe("");
  });
});

describe("Facts", () => {
  it("pairs each term with its value, and puts a fact's attributes on the value", () => {
    const { container } = render(
      <Facts>
        <Fact term="Patient">P-1001</Fact>
        <Fact term="SHA-256" className="cs-mono" data-testid="hash">
          ab12
        </Fact>
      </Facts>,
    );
    const list = container.querySelector("dl")!;
    expect([...list.children].map((child) => `${child.tagName}:${child.textContent}`)).toEqual([
      "DT:Patient",
      "DD:P-1001",
      "DT:SHA-256",
      "DD:ab12",
    ]);
    expect(screen.getByTestId("hash").className).toBe("cs-mono");
  });
});
