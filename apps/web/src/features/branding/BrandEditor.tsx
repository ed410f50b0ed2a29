"use client";

import {
  brandingFonts,
  LOGO_MAX_BYTES,
  logoContentTypes,
  type Branding,
  type DesignParameters,
} from "@clinsign/contracts";
import { Badge, Button, Card, LiveRegion, Notice, SelectField, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type ChangeEvent, type FormEvent } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { fieldMessage } from "../../trpc/field-errors";
import { normalizeHex } from "../patient/branding";
import { BrandPreview } from "./BrandPreview";
import { checkColorContrast, formatRatio, type ContrastResult } from "./contrast";
import { uploadLogo } from "./logo-upload";
import styles from "./branding.module.css";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useFieldMarks } from "../../components/field-marks";

type Texts = Dictionary["brandingPage"];

/** Which branding the editor changes: the organization's default, an institution's, or a new one. */
export type EditTarget = { kind: "default" } | { kind: "institution"; institutionId: string } | { kind: "new" };

interface Draft {
  institutionId: string;
  logoUrl: string;
  primaryColor: string;
  accentColor: string;
  font: string;
}

const FIELDS = [
  "institution_id",
  "logo_url",
  "design_parameters.primaryColor",
  "design_parameters.accentColor",
  "design_parameters.font",
] as const;

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

const toDraft = (branding: Branding | null, institutionId: string): Draft => ({
  institutionId,
  logoUrl: branding?.logoUrl ?? "",
  primaryColor: branding?.primaryColor ?? "",
  accentColor: branding?.accentColor ?? "",
  font: branding?.font ?? "",
});

/** The draft as the preview shows it: only values the portal would accept, like the server keeps. */
function previewBranding(draft: Draft): Branding {
  return {
    logoUrl: draft.logoUrl.trim() || null,
    primaryColor: normalizeHex(draft.primaryColor),
    accentColor: normalizeHex(draft.accentColor),
    font: draft.font || null,
  };
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
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const logoInputId = useId();
  const [draft, setDraft] = useState<Draft>(() =>
    toDraft(initial, target.kind === "institution" ? target.institutionId : ""),
  );
  const [saved, setSaved] = useState(false);
  const [logoError, setLogoError] = useState<string | null>(null);
  const set = (key: keyof Draft, value: string) => {
    setSaved(false);
    setDraft((current) => ({ ...current, [key]: value }));
  };

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.organization.defaultBranding.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.brandings.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.institutions.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.signatures.getDesign.pathKey() });
  };
  const onSuccess = () => {
    setSaved(true);
    refresh();
    onSaved(target.kind === "new" ? { kind: "institution", institutionId: draft.institutionId.trim() } : target);
  };
  const saveDefault = useMutation(trpc.organization.setDefaultBranding.mutationOptions({ onSuccess }));
  const createDesign = useMutation(trpc.signatures.createDesign.mutationOptions({ onSuccess }));
  const replaceDesign = useMutation(trpc.signatures.replaceDesign.mutationOptions({ onSuccess }));
  const save = target.kind === "default" ? saveDefault : target.kind === "new" ? createDesign : replaceDesign;
  const upload = useMutation({
    mutationFn: uploadLogo,
    onMutate: () => setLogoError(null),
    onSuccess: (result) => set("logoUrl", result.logoUrl),
    onError: (error) => setLogoError(error instanceof Error && error.message ? error.message : t.errors.generic),
  });

  const apiError = save.error ? readApiError(save.error) : null;
  // The `/design` checks' own wording for colours and the logo address, in the UI's language.
  const message = (key: (typeof FIELDS)[number]) => {
    const text = fieldMessage(apiError, key, t);
    if (text && /^must be a hex colour/.test(text)) return b.notHex;
    if (text && /^must be an https URL/.test(text)) return b.logoNotHttps;
    return text;
  };
  /** What an input of the draft takes: its value, its change, and the server's message on its field. */
  const bind = (key: keyof Draft, field: (typeof FIELDS)[number]) => ({
    value: draft[key],
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => set(key, e.target.value),
    error: message(field),
  });
  /** The same for a colour, whose field answers the value itself. */
  const bindColour = (key: "primaryColor" | "accentColor") => ({
    value: draft[key],
    onChange: (value: string) => set(key, value),
    error: message(`design_parameters.${key}`),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const design_parameters: DesignParameters = {};
    if (draft.primaryColor) design_parameters.primaryColor = draft.primaryColor;
    if (draft.accentColor) design_parameters.accentColor = draft.accentColor;
    if (draft.font) design_parameters.font = draft.font as DesignParameters["font"];
    const common = { logo_url: draft.logoUrl.trim() || null, design_parameters };
    if (target.kind === "default") saveDefault.mutate(common);
    else if (target.kind === "new") createDesign.mutate({ institution_id: draft.institutionId, ...common });
    else replaceDesign.mutate({ institution_id: target.institutionId, ...common });
  }

  function chooseLogo(file: File | undefined) {
    if (!file) return;
    if (!(logoContentTypes as readonly string[]).includes(file.type)) return setLogoError(b.logoWrongType);
    if (file.size > LOGO_MAX_BYTES) return setLogoError(format(b.logoTooLarge, { kb: String(LOGO_MAX_BYTES / 1024) }));
    upload.mutate(file);
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
          <fieldset className={styles.colorField}>
            <legend className="cs-label">{b.logo}</legend>
            <span className="cs-hint">{format(b.logoHint, { kb: String(LOGO_MAX_BYTES / 1024) })}</span>
            <div className="cs-field">
              <label className="cs-label" htmlFor={logoInputId}>
                {b.logoUpload}
              </label>
              <input
                id={logoInputId}
                type="file"
                className={`cs-input ${styles.file}`}
                accept={logoContentTypes.join(",")}
                onChange={(e) => {
                  chooseLogo(e.target.files?.[0]);
                  e.target.value = "";
                }}
                aria-invalid={logoError ? true : undefined}
                aria-describedby={logoError ? `${logoInputId}-error` : undefined}
              />
              {logoError ? (
                <span id={`${logoInputId}-error`} className="cs-field-error">
                  {logoError}
                </span>
              ) : null}
              <span role="status" aria-live="polite" className="cs-hint">
                {upload.isPending ? b.logoUploading : upload.isSuccess ? b.logoUploaded : ""}
              </span>
            </div>
            <div className={styles.colorRow}>
              <TextField
                label={b.logoUrl}
                hint={b.logoUrlHint}
                type="url"
                inputMode="url"
                placeholder="https://"
                maxLength={2048}
                {...bind("logoUrl", "logo_url")}
                className={styles.grow}
              />
              {draft.logoUrl ? (
                <Button size="small" variant="ghost" onClick={() => set("logoUrl", "")}>
                  {b.removeLogo}
                </Button>
              ) : null}
            </div>
          </fieldset>
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
            <Button type="submit" variant="primary" busy={save.isPending}>
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
