import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SelectField } from "./SelectField";

afterEach(cleanup);

const options = [
  { value: "draft", label: "Draft" },
  { value: "active", label: "Active" },
];

const optionTexts = (select: HTMLElement) => Array.from(select.querySelectorAll("option"), (o) => o.textContent);

describe("SelectField", () => {
  it("is a labelled select with the placeholder first, as the empty value", () => {
    render(<SelectField label="Status" placeholder="All statuses" options={options} value="" onChange={() => {}} />);
    const select = screen.getByLabelText("Status") as HTMLSelectElement;
    expect(select.tagName).toBe("SELECT");
    expect(select.className).toContain("cs-input");
    expect(optionTexts(select)).toEqual(["All statuses", "Draft", "Active"]);
    expect(select.value).toBe("");
  });

  it("reports the chosen value", () => {
    const onChange = vi.fn();
    render(<SelectField label="Status" options={options} value="draft" onChange={(e) => onChange(e.target.value)} />);
    fireEvent.change(screen.getByLabelText("Status"), { target: { value: "active" } });
    expect(onChange).toHaveBeenCalledWith("active");
  });

  it("keeps an unknown value selectable when asked to, and only then", () => {
    const { rerender } = render(
      <SelectField label="Form" options={options} value="archived-form" keepUnknownValue onChange={() => {}} />,
    );
    const select = screen.getByLabelText("Form") as HTMLSelectElement;
    expect(optionTexts(select)).toEqual(["Draft", "Active", "archived-form"]);
    expect(select.value).toBe("archived-form");
    rerender(<SelectField label="Form" options={options} value="active" keepUnknownValue onChange={() => {}} />);
    expect(optionTexts(select)).toEqual(["Draft", "Active"]);
  });

  it("uses the value as the label when there is none, and passes disabled and lang on", () => {
    render(
      <SelectField
        label="Language"
        options={[
          { value: "Deutsch", lang: "de" },
          { value: "English", disabled: true },
        ]}
        defaultValue="Deutsch"
      />,
    );
    const [de, en] = Array.from(screen.getByLabelText("Language").querySelectorAll("option"));
    expect(de?.textContent).toBe("Deutsch");
    expect(de?.getAttribute("lang")).toBe("de");
    expect(en?.disabled).toBe(true);
  });

  it("wires its error like every Field", () => {
    render(<SelectField label="Document" options={options} error="Choose a document" defaultValue="" />);
    const select = screen.getByLabelText("Document");
    expect(select.getAttribute("aria-invalid")).toBe("true");
    const errorId = select.getAttribute("aria-describedby")!;
    expect(document.getElementById(errorId)?.textContent).toBe("Choose a document");
  });
});
