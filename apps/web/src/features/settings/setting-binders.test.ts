import type { ChangeEvent } from "react";
import { describe, expect, it } from "vitest";
import { settingBinders } from "./setting-binders";

interface State {
  name: string;
  locale: "de" | "en";
  enabled: boolean;
}

function binders(errors: Record<string, string> = {}) {
  const changes: Array<[keyof State, unknown]> = [];
  const form: State = { name: "Clinic", locale: "de", enabled: false };
  const { textSetting, switchSetting } = settingBinders<State>({
    form,
    errors,
    disabled: true,
    change: (key, value) => changes.push([key, value]),
  });
  return { textSetting, switchSetting, changes };
}

describe("settingBinders", () => {
  it("gives a text setting its name, value, error and change, under another name when asked", () => {
    const { textSetting, changes } = binders({ name: "Required" });
    const field = textSetting("name", "clinicName");
    expect(field).toMatchObject({ name: "clinicName", value: "Clinic", disabled: true, error: "Required" });
    field.onChange({ currentTarget: { value: "Other" } } as ChangeEvent<HTMLInputElement>);
    expect(changes).toEqual([["name", "Other"]]);
  });

  it("gives an on/off setting its name, state and change", () => {
    const { switchSetting, changes } = binders();
    const toggle = switchSetting("enabled");
    expect(toggle).toMatchObject({ name: "enabled", checked: false, disabled: true });
    toggle.onChange(true);
    expect(changes).toEqual([["enabled", true]]);
  });
});
