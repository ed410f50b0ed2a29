import type { FormValues, TemplateSchema } from "@clinsign/contracts";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FormRenderer } from "./FormRenderer";
import type { FormRendererLabels } from "./labels";

afterEach(cleanup);

const labels = {
  requiredNote: "* required",
  requiredMark: "required",
  optional: "optional",
  selectPlaceholder: "Choose…",
  errorSummaryTitle: "Please check",
  characterCount: "{count} of {max}",
  score: { points: "{score} points", incomplete: "{answered} of {total} answered" },
  problem: (problem) => `problem: ${problem.code}`,
} as Partial<FormRendererLabels> as FormRendererLabels;

const options = ["Not at all", "Several days", "More than half the days", "Nearly every day"].map((label, weight) => ({
  value: String(weight),
  label,
  weight,
}));
const schema: TemplateSchema = {
  version: 1,
  fields: [
    { id: "1", key: "q1", type: "radio", label: "Trouble relaxing", required: true, options },
    { id: "2", key: "q2", type: "radio", label: "Feeling afraid", required: true, options },
    {
      id: "3",
      key: "total",
      type: "score",
      label: "Total score",
      sources: ["q1", "q2"],
      bands: [
        { min: 0, max: 2, label: "Low" },
        { min: 3, max: 6, label: "High" },
      ],
    },
  ],
};

function Harness({ onSubmit, form = schema }: { onSubmit(values: FormValues): void; form?: TemplateSchema }) {
  const [values, setValues] = useState<FormValues>({});
  return (
    <FormRenderer
      schema={form}
      values={values}
      onValueChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))}
      onSubmit={onSubmit}
      labels={labels}
      submitLabel="Send"
    />
  );
}

describe("FormRenderer with a score field", () => {
  it("shows the score and band live, read-only, and never submits a score of its own", async () => {
    const onSubmit = vi.fn();
    render(<Harness onSubmit={onSubmit} />);
    const output = screen.getByRole("status", { name: "Total score" });
    expect(output.tagName).toBe("OUTPUT");
    expect(output.textContent).toBe("0 of 2 answered");
    fireEvent.click(screen.getAllByLabelText("Nearly every day")[0]!);
    expect(output.textContent).toBe("1 of 2 answered");
    fireEvent.click(screen.getAllByLabelText("Several days")[1]!);
    expect(output.textContent).toBe("4 points High");
    fireEvent.click(screen.getAllByLabelText("Not at all")[0]!);
    expect(output.textContent).toBe("1 points Low");
    // Nothing to type into: the score is not a form control.
    expect(screen.queryByRole("textbox")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ q1: "0", q2: "1" }));
  });

  it("shows no score to the patient when the template keeps scores from the patient", async () => {
    const onSubmit = vi.fn();
    const { container } = render(<Harness onSubmit={onSubmit} form={{ ...schema, scoresShownToPatient: false }} />);
    fireEvent.click(screen.getAllByLabelText("Nearly every day")[0]!);
    fireEvent.click(screen.getAllByLabelText("Several days")[1]!);
    // Neither the label, the sum nor the band; no live region announcing them either.
    expect(screen.queryByRole("status")).toBeNull();
    expect(container.textContent).not.toContain("Total score");
    expect(container.textContent).not.toContain("4 points");
    expect(container.textContent).not.toContain("High");
    expect(container.querySelector('[data-field-type="score"]')).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ q1: "3", q2: "1" }));
  });

  it("shows the score when the template says so explicitly", () => {
    render(<Harness onSubmit={vi.fn()} form={{ ...schema, scoresShownToPatient: true }} />);
    expect(screen.getByRole("status", { name: "Total score" })).toBeTruthy();
  });
});
