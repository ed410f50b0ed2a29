import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { CopyField } from "./CopyField";
import { Field } from "./Field";
import { TextField } from "./TextField";

afterEach(cleanup);

/** The ids an element's aria-describedby names, as the texts of those elements. */
function descriptions(element: HTMLElement): string[] {
  const ids = element.getAttribute("aria-describedby")?.split(" ") ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? `missing #${id}`);
}

describe("Field", () => {
  it("names the control by its label and describes it by hint and error", () => {
    render(<TextField label="Case number" hint="As on the admission form" error="Too short" />);
    const input = screen.getByLabelText("Case number");
    expect(input.tagName).toBe("INPUT");
    expect(descriptions(input)).toEqual(["As on the admission form", "Too short"]);
    expect(input.getAttribute("aria-invalid")).toBe("true");
  });

  it("leaves out aria-describedby and aria-invalid while there is nothing to say", () => {
    render(<TextField label="Name" />);
    const input = screen.getByLabelText("Name");
    expect(input.hasAttribute("aria-describedby")).toBe(false);
    expect(input.hasAttribute("aria-invalid")).toBe(false);
  });

  it("makes the error an alert only when asked to announce it", () => {
    render(
      <>
        <Field label="File" error="Not a PKCS#12 file" announceError>
          {(attributes) => <input type="file" {...attributes} />}
        </Field>
        <TextField label="Password" error="Wrong password" />
      </>,
    );
    expect(screen.getByRole("alert").textContent).toBe("Not a PKCS#12 file");
    expect(descriptions(screen.getByLabelText("File"))).toEqual(["Not a PKCS#12 file"]);
  });

  it("passes a TextField's own attributes to the input and its field ones to the wrapper", () => {
    render(<TextField label="Days" className="narrow" hint="0 to 3650" type="number" required name="days" />);
    const input = screen.getByLabelText(/Days/);
    expect(input.getAttribute("name")).toBe("days");
    expect(input.hasAttribute("required")).toBe(true);
    expect(input.className).toBe("cs-input");
    expect(input.closest(".cs-field")?.className).toBe("cs-field narrow");
    expect(input.hasAttribute("hint")).toBe(false);
  });

  it("keeps a given id and hides the label only visually", () => {
    render(<TextField id="search" label="Search" hideLabel />);
    const input = screen.getByLabelText("Search");
    expect(input.id).toBe("search");
    expect(document.querySelector("label[for=search]")?.className).toBe("cs-visually-hidden");
  });

  it("marks a required field for the eye and for screen readers, and an optional one with its note", () => {
    const marks = { required: "required", optional: "optional" };
    render(
      <>
        <TextField label="Phone" required marks={marks} />
        <TextField label="E-mail" marks={marks} />
      </>,
    );
    expect(screen.getByLabelText("Phone * (required)")).toBeTruthy();
    expect(screen.getByLabelText("E-mail (optional)")).toBeTruthy();
    expect(document.querySelector(".cs-field__required")?.getAttribute("aria-hidden")).toBe("true");
  });

  it("as a group, puts the description and the invalid state on the fieldset named by its legend", () => {
    render(
      <Field label="Allergies" hint="Tick all that apply" error="Choose one" layout="group">
        {({ id }) => <input type="checkbox" id={id} aria-label="Pollen" />}
      </Field>,
    );
    const group = screen.getByRole("group", { name: "Allergies" });
    expect(group.tagName).toBe("FIELDSET");
    expect(descriptions(group)).toEqual(["Tick all that apply", "Choose one"]);
    expect(group.getAttribute("aria-invalid")).toBe("true");
  });

  it("inline, wraps the control in its label", () => {
    render(
      <Field label="I agree" layout="inline">
        {(attributes) => <input type="checkbox" {...attributes} />}
      </Field>,
    );
    const box = screen.getByLabelText("I agree");
    expect(box.closest("label")).not.toBeNull();
  });

  it("gives CopyField the same wiring: label and hint on its read-only input", () => {
    render(
      <CopyField
        label="Signing link"
        hint="Valid for 7 days"
        value="https://example.test/s/abc"
        labels={{ copy: "Copy", copied: "Copied", copyManually: "Copy it by hand" }}
      />,
    );
    const input = screen.getByLabelText("Signing link") as HTMLInputElement;
    expect(input.readOnly).toBe(true);
    expect(input.value).toBe("https://example.test/s/abc");
    expect(descriptions(input)).toEqual(["Valid for 7 days"]);
  });
});
