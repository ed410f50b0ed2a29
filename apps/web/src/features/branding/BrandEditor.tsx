"use client";

import { brandingFonts, type Branding } from "@clinsign/contracts";
import { Badge, Button, Card, LiveRegion, Notice, SelectField, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useReducer, type ChangeEvent, type FormEvent } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { fieldMessage } from "../../trpc/field-errors";
import {
  designInput,
  editorReducer,
  FIELDS,
  previewBranding,
  toDraft,
  type DesignField,
  type Draft,
  type EditTarget,
} from "./brand-draft";
import { BrandPreview } from "./BrandPreview";
import { checkColorContrast, formatRatio, type ContrastResult } from "./contrast";
import { LogoFieldset, useLogoUpload } from "./LogoFieldset";
import styles from "./branding.module.css";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useFieldMarks } from "../../components/field-marks";

export type { EditTarget } from "./brand-draft";

type Texts = Dictionary["brandingPage"];

function Check({ label, result, locale, b }: { label: string; result: ContrastResult; locale: string; b: Texts }) {
  return (
    <li className={styles.check} data-passes={result.passes}>
      <span>{label}</span>
      <span className={styles.checkResult}>
        <code className="cs-mono">{formatRatio(result.ratio, locale)}</code>
        <Badge tone={result.passes ? "success" : "warning"}>{result.passes ? b.contrastPass : b.contrastFail}</Badge>
      </span>
    </li>
  );
}

/** A brand colour: the browser's picker and the hex value, with the contrast check under it. */
function ColorField({
  id,
  label,
  hint,
  value,
  onChange,
  error,
}: {
  id: string;
  label: string;
  hint: string;
  value: string;
  onChange(value: string): void;
  error?: string;
}) {
  const { t, locale } = useI18n();
  const b = t.brandingPage;
  const check = checkColorContrast(value);
  const statusId = `${id}-contrast`;
  return (
    <fieldset className={styles.colorField}>
      <legend className="cs-label">{label}</legend>
      <span className="cs-hint">{hint}</span>
      <div className={styles.colorRow}>
        <input
          type="color"
          className={styles.picker}
          aria-label={format(b.pickColor, { name: label })}
          value={check?.color ?? "#ffffff"}
          onChange={(e) => onChange(e.target.value)}
          aria-describedby={statusId}
        />
        <TextField
          id={id}
          label={format(b.hexLabel, { name: label })}
          hideLabel
          mono
          placeholder="#0a7f5a"
          value={value}
          onChange={(e) => onChange(e.target.value.trim())}
          maxLength={7}
          spellCheck={false}
          autoComplete="off"
          error={error ?? (value && !check ? b.notHex : undefined)}
        />
        {value ? (
          <Button size="small" variant="ghost" onClick={() => onChange("")}>
            {b.clearColor}
          </Button>
        ) : null}
      </div>
      <div id={statusId} role="status" aria-live="polite" className={styles.contrast}>
        {check ? (
          <>
            <ul className={styles.checks} aria-label={format(b.contrastOf, { name: label })}>
              <Check
                label={check.text === "#ffffff" ? b.whiteTextOnColor : b.blackTextOnColor}
                result={check.textOnColor}
                locale={locale}
                b={b}
              />
              <Check label={b.colorOnWhite} result={check.colorOnWhite} locale={locale} b={b} />
            </ul>
            {check.passes ? null : (
              <Notice tone="warning" title={b.lowContrastTitle}>
                {b.lowContrastBody}
              </Notice>
            )}
          </>
        ) : value ? null : (
          <span className="cs-hint">{b.noColor}</span>
        )}
      </div>
    </fieldset>
  );
}

/**
 * Saving a branding where it belongs: the organization's default, a new institution's design, or
 * an institution's replaced; each success refreshes every list and page that shows brandings.
 */
function useBrandingSave(target: EditTarget, onSaved: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const onSuccess = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.organization.defaultBranding.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.brandings.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.institutions.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.getDesign.pathKey() });
    onSaved();
  };
  const saveDefault = useMutation(trpc.organization.setDefaultBranding.mutationOptions({ onSuccess }));
  const createDesign = useMutation(trpc.signatures.createDesign.mutationOptions({ onSuccess }));
  const replaceDesign = useMutation(trpc.signatures.replaceDesign.mutationOptions({ onSuccess }));
  const save = target.kind === "default" ? saveDefault : target.kind === "new" ? createDesign : replaceDesign;

  function submit(draft: Draft) {
    const common = designInput(draft);
    if (target.kind === "default") saveDefault.mutate(common);
    else if (target.kind === "new") createDesign.mutate({ institution_id: draft.institutionId, ...common });
    else replaceDesign.mutate({ institution_id: target.institutionId, ...common });
  }

  return { submit, busy: save.isPending, error: save.error };
}

/**
 * Edits one branding: logo (upload or https URL), primary and accent colour with a live WCAG AA
 * check (a warning, saving stays allowed), a font from the allowed list, and a phone-width preview
 * of the signing page and a form page. Saves through the same validation as `/design`; the
 * server's objections appear on their fields.
 */
export function BrandEditor({
  target,
  initial,
  onSaved,
}: {
  target: EditTarget;
  initial: Branding | null;
  onSaved(target: EditTarget): void;
}) {
  const { t } = useI18n();
  const { marks } = useFieldMarks();
  const b = t.brandingPage;
  const [{ draft, saved }, dispatch] = useReducer(editorReducer, null, () => ({
    draft: toDraft(initial, target.kind === "institution" ? target.institutionId : ""),
    saved: false,
  }));
  const set = (key: keyof Draft, value: string) => dispatch({ type: "set", key, value });
  const save = useBrandingSave(target, () => {
    dispatch({ type: "saved" });
    onSaved(target.kind === "new" ? { kind: "institution", institutionId: draft.institutionId.trim() } : target);
  });
  const logo = useLogoUpload((logoUrl) => set("logoUrl", logoUrl));
  const { bind, bindColour } = draftBinders(draft, set, save.error, t);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.submit(draft);
  }

  const institutionId = target.kind === "institution" ? target.institutionId : draft.institutionId.trim() || null;
  return (
    <div className={styles.editor}>
      <Card title={b.editTitle}>
        <form className="cs-stack cs-stack--lg" onSubmit={submit} noValidate aria-label={b.editTitle}>
          {target.kind === "new" ? (
            <TextField
              label={t.signatureRequestsPage.institutionId}
              hint={b.institutionHint}
              required
              marks={marks}
              maxLength={200}
              autoComplete="off"
              {...bind("institutionId", "institution_id")}
            />
          ) : null}
          <LogoFieldset upload={logo} url={bind("logoUrl", "logo_url")} onRemove={() => set("logoUrl", "")} />
          <ColorField id="brand-primary" label={b.primaryColor} hint={b.primaryHint} {...bindColour("primaryColor")} />
          <ColorField id="brand-accent" label={b.accentColor} hint={b.accentHint} {...bindColour("accentColor")} />
          <SelectField
            id="brand-font"
            label={b.font}
            placeholder={b.fontDefault}
            options={brandingFonts.map((font) => ({ value: font }))}
            {...bind("font", "design_parameters.font")}
          />
          <LiveRegion>
            {saved ? (
              <Notice tone="success">
                {target.kind === "default"
                  ? b.savedDefault
                  : format(b.savedInstitution, { institution: institutionId ?? "" })}
              </Notice>
            ) : null}
            <ErrorNotice error={save.error} fields={FIELDS} />
          </LiveRegion>
          <div>
            <Button type="submit" variant="primary" busy={save.busy}>
              {target.kind === "new" ? b.create : b.save}
            </Button>
          </div>
        </form>
      </Card>
      <Card title={b.previewTitle} description={b.previewDescription}>
        <BrandPreview branding={previewBranding(draft)} />
      </Card>
    </div>
  );
}

/**
 * What the inputs of the draft take: the value, the change, and the server's message on the
 * field, in the `/design` checks' own wording for colours and the logo address, in the UI's
 * language.
 */
function draftBinders(draft: Draft, set: (key: keyof Draft, value: string) => void, saveError: unknown, t: Dictionary) {
  const apiError = saveError ? readApiError(saveError) : null;
  const message = (key: DesignField) => {
    const text = fieldMessage(apiError, key, t);
    if (text && /^must be a hex colour/.test(text)) return t.brandingPage.notHex;
    if (text && /^must be an https URL/.test(text)) return t.brandingPage.logoNotHttps;
    return text;
  };
  return {
    bind: (key: keyof Draft, field: DesignField) => ({
      value: draft[key],
      onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => set(key, e.target.value),
      error: message(field),
    }),
    /** The same for a colour, whose field answers the value itself. */
    bindColour: (key: "primaryColor" | "accentColor") => ({
      value: draft[key],
      onChange: (value: string) => set(key, value),
      error: message(`design_parameters.${key}`),
    }),
  };
}
