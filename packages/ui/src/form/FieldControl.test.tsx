import type { FormField } from "@clinsign/contracts";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FieldControl, fieldControlId } from "./FieldControl";
import type { FormRendererLabels } from "./labels";

afterEach(cleanup);

const labels = {
  requiredMark: "required",
  optional: "optional",
  selectPlaceholder: "Choose…",
  characterCount: "{count} of {max}",
  problem: (problem) => `problem: ${problem.code}`,
} as Partial<FormRendererLabels> as FormRendererLabels;

function renderField(field: FormField, props: { value?: unknown; problem?: { code: "required" } | null } = {}) {
  const onChange = vi.fn();
  render(
    <FieldControl
      field={field}
      idPrefix="form"
      value={props.value}
      problem={props.problem ?? null}
      labels={labels}
      disabled={false}
      onChange={onChange}
      onBlur={() => {}}
    />,
  );
  return onChange;
}

const describedBy = (element: HTMLElement) =>
  (element.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent);

describe("FieldControl", () => {
  it("a required text field: its label with the mark, help and problem tied to the input, its id for the error summary", () => {
    const onChange = renderField(
      { id: "f1", type: "text", key: "name", label: "Full name", required: true, helpText: "As on your card" },
      { value: "", problem: { code: "required" } },
    );
    const input = screen.getByLabelText("Full name * (required)");
    expect(input.id).toBe(fieldControlId("form", "name"));
    expect(input.getAttribute("aria-required")).toBe("true");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(describedBy(input)).toEqual(["As on your card", "problem: required"]);
    fireEvent.change(input, { target: { value: "Ada" } });
    expect(onChange).toHaveBeenCalledWith("Ada");
  });

  it("an optional select says so and offers the placeholder first", () => {
    renderField({ id: "f2", type: "select", key: "insurance", label: "Insurance", options: ["public", "private"] });
    const select = screen.getByLabelText("Insurance (optional)");
    expect(Array.from(select.querySelectorAll("option"), (o) => o.textContent)).toEqual([
      "Choose…",
      "public",
      "private",
    ]);
  });

  it("radio choices sit in a fieldset named by the legend, which carries the problem", () => {
    const onChange = renderField(
      { id: "f3", type: "radio", key: "smoker", label: "Do you smoke?", options: ["yes", "no"] },
      { problem: { code: "required" } },
    );
    const group = screen.getByRole("group", { name: "Do you smoke? (optional)" });
    expect(group.getAttribute("aria-invalid")).toBe("true");
    expect(describedBy(group)).toEqual(["problem: required"]);
    const yes = screen.getByLabelText("yes");
    expect(yes.id).toBe(fieldControlId("form", "smoker"));
    fireEvent.click(screen.getByLabelText("no"));
    expect(onChange).toHaveBeenCalledWith("no");
  });

  it("a checkbox is wrapped in its label", () => {
    const onChange = renderField({ id: "f4", type: "checkbox", key: "consent", label: "I consent", required: true });
    const box = screen.getByLabelText("I consent * (required)") as HTMLInputElement;
    expect(box.type).toBe("checkbox");
    fireEvent.click(box);
    expect(onChange).toHaveBeenCalledWith(true);
  });
});
