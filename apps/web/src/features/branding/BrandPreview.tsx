"use client";

import type { Branding, TemplateSchema } from "@clinsign/contracts";
import { Button, Segmented } from "@clinsign/ui";
import { FormRenderer } from "@clinsign/ui/form";
import { useMemo, useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useSession } from "../../components/admin-shell/SessionContext";
import { rendererLabels } from "../forms/renderer-labels";
import { PatientShell } from "../patient/PatientShell";
import styles from "./branding.module.css";

type Screen = "signing" | "form";

/** A short form in the patient texts' language, to show fields, a choice and the submit button. */
function sampleSchema(b: Dictionary["brandingPage"]): TemplateSchema {
  return {
    version: 1,
    fields: [
      { id: "p1", type: "text", key: "name", label: b.sampleName, required: true },
      { id: "p2", type: "date", key: "birthDate", label: b.sampleBirthDate },
      {
        id: "p3",
        type: "radio",
        key: "insurance",
        label: b.sampleInsurance,
        options: [
          { value: "public", label: b.sampleInsurancePublic },
          { value: "private", label: b.sampleInsurancePrivate },
        ],
      },
      { id: "p4", type: "checkbox", key: "consent", label: b.sampleConsent },
    ],
  } as TemplateSchema;
}

/** The signing page's ready screen with sample content, in the portal's own frame. */
function SigningSample({ t }: { t: Dictionary }) {
  const b = t.brandingPage;
  return (
    <div className={styles.sample}>
      <h2 className={styles.sampleTitle}>{b.sampleDocumentTitle}</h2>
      <p className="cs-hint">{format(t.signing.expiresAt, { date: b.sampleDate })}</p>
      <p>{t.signing.steps}</p>
      <div className={styles.samplePage} aria-hidden="true">
        <span />
        <span />
        <span />
        <span className={styles.sampleField}>{t.signing.fieldTag}</span>
      </div>
      <h3 className={styles.sampleSubtitle}>{t.signing.signHeading}</h3>
      <label className={styles.sampleConsent}>
        <input type="checkbox" defaultChecked />
        <span>{t.signing.consent}</span>
      </label>
      <div className={styles.sampleActions}>
        <Button variant="primary">{t.signing.signButton}</Button>
        <Button variant="ghost">{t.signing.declineButton}</Button>
      </div>
      <a href="#preview" className={styles.sampleLink} onClick={(event) => event.preventDefault()}>
        {t.signing.download}
      </a>
    </div>
  );
}

/**
 * The branding being edited, applied to the patients' own shell (PatientShell in preview mode)
 * at phone width: the signing page or a form page. It follows every keystroke; nothing in it can
 * be used (it is inert), so it never submits or switches the admin page's language.
 */
export function BrandPreview({ branding }: { branding: Branding }) {
  const { t, locale } = useI18n();
  // Patients see the organization's name beside every brand's logo.
  const organizationName = useSession().organization.name;
  const b = t.brandingPage;
  const [screen, setScreen] = useState<Screen>("signing");
  const schema = useMemo(() => sampleSchema(b), [b]);
  const labels = useMemo(() => rendererLabels(t, locale), [t, locale]);
  return (
    <div className={styles.preview}>
      <Segmented<Screen>
        label={b.previewScreen}
        name="brand-preview-screen"
        value={screen}
        onChange={setScreen}
        options={[
          { value: "signing", label: b.previewSigning },
          { value: "form", label: b.previewForm },
        ]}
      />
      <div
        className={styles.phone}
        data-testid="brand-preview"
        role="group"
        aria-label={screen === "signing" ? b.previewSigningLabel : b.previewFormLabel}
      >
        {/* Scrolls like a phone screen; focusable so keyboard users can scroll it (its content is inert). */}
        <div className={styles.phoneScreen} tabIndex={0}>
          <div inert>
            <PatientShell
              preview
              branding={branding}
              organizationName={organizationName}
              footer={screen === "form" ? t.patient.formsFooter : undefined}
            >
              {screen === "signing" ? (
                <SigningSample t={t} />
              ) : (
                <div className={styles.sample}>
                  <h2 className={styles.sampleTitle}>{b.sampleFormTitle}</h2>
                  <FormRenderer
                    idPrefix="brand-preview"
                    schema={schema}
                    values={{}}
                    onValueChange={() => undefined}
                    onSubmit={() => undefined}
                    labels={labels}
                    submitLabel={t.forms.submit}
                  />
                </div>
              )}
            </PatientShell>
          </div>
        </div>
      </div>
      <p className="cs-hint">{b.previewHint}</p>
    </div>
  );
}
