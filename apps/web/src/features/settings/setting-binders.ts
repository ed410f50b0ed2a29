import type { ChangeEvent } from "react";

/** The keys of a form state held as free text (not a fixed set of words), and those on or off. */
export type TextKey<State> = {
  [K in keyof State]: string extends State[K] ? (State[K] extends string ? K : never) : never;
}[keyof State] &
  string;
export type SwitchKey<State> = { [K in keyof State]: State[K] extends boolean ? K : never }[keyof State] & string;

/** How every URL setting is typed: a URL keyboard, the scheme as a placeholder, no spell check. */
export const urlInput = { type: "url", inputMode: "url", placeholder: "https://", spellCheck: false } as const;

export type ChangeSetting<State> = <Key extends keyof State>(key: Key, value: State[Key]) => void;

/**
 * What the fields of a settings form take from its state, so each field names only its own
 * label, hint and input kind: `textSetting(key)` for a TextField or SelectField, `switchSetting(key)`
 * for a Switch. The field's name is the key unless given.
 */
export function settingBinders<State>({
  form,
  errors,
  disabled,
  change,
}: {
  form: State;
  errors: Partial<Record<string, string>>;
  disabled: boolean;
  change: ChangeSetting<State>;
}) {
  return {
    textSetting: (key: TextKey<State>, name: string = key) => ({
      name,
      value: form[key] as string,
      disabled,
      error: errors[key],
      onChange: (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
        change(key, event.currentTarget.value as State[TextKey<State>]),
    }),
    switchSetting: (key: SwitchKey<State>, name: string = key) => ({
      name,
      checked: form[key] as boolean,
      disabled,
      onChange: (checked: boolean) => change(key, checked as State[SwitchKey<State>]),
    }),
  };
}
