"use client";

import { fhirPushAuth, type FhirPushTarget } from "@clinsign/contracts";
import { Card, Notice, SelectField, Switch, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useReducer, useRef, type Dispatch, type FormEvent } from "react";
import { useFocusFirstInvalid } from "../../components/useFocusFirstInvalid";
import { QueryState } from "../../components/QueryState";
import type { Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { SaveRow } from "../settings/SaveRow";
import { settingBinders, urlInput } from "../settings/setting-binders";
import settingsStyles from "../settings/settings.module.css";
import { CredentialField } from "./CredentialField";
import {
  authNeeds,
  fhirPushInput,
  fhirPushSaveErrors,
  validateFhirPushForm,
  type FhirPushFormState,
} from "./fhir-push-form";
import {
  credentialState,
  fhirPushModel,
  fhirPushReducer,
  type FhirPushAction,
  type FhirPushModel,
} from "./fhir-push-reducer";
import styles from "./fhir-push.module.css";

type Texts = Dictionary["fhirPush"];
type Binders = ReturnType<typeof settingBinders<FhirPushFormState>>;

/**
 * Settings → the organization's FHIR server (issue 34): where each completed record goes, how
 * ClinSign signs in there, and the identifier systems of its patients. Admins only (the page
 * leaves the card out for others); the credential is never shown, only whether one is stored.
 */
export function FhirPushSettings() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const target = useQuery(trpc.fhirPush.target.queryOptions());
  return (
    <Card
      id="fhir-push"
      title={t.fhirPush.title}
      description={t.fhirPush.description}
      actions={
        <Link className="cs-button cs-button--secondary cs-button--small" href="/fhir-deliveries">
          {t.fhirPush.deliveriesLink}
        </Link>
      }
    >
      <QueryState query={target} lines={6}>
        {(data) => <FhirPushForm target={data} />}
      </QueryState>
    </Card>
  );
}

/** Saving: the browser's checks first, then the call; the server's refusal lands at the field it names. */
function useFhirPushSave(model: FhirPushModel, dispatch: Dispatch<FhirPushAction>) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(
    trpc.fhirPush.saveTarget.mutationOptions({
      onSuccess: (target) => {
        queryClient.setQueryData(trpc.fhirPush.target.queryKey(), target);
        dispatch({ type: "saved", target, text: t.fhirPush.saved });
      },
      onError: (error) => {
        const errors = fhirPushSaveErrors(readApiError(error), t);
        // A refusal of no field is said above the form; beside the button, only that nothing was saved.
        dispatch({ type: "fail", errors, text: errors.form ? t.fhirPush.notSaved : t.fhirPush.saveFailed });
      },
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const errors = validateFhirPushForm(model.form, model.saved, t);
    if (Object.keys(errors).length > 0) return dispatch({ type: "fail", errors, text: t.fhirPush.saveFailed });
    save.mutate(fhirPushInput(model.form));
  }
  return { onSubmit, busy: save.isPending };
}

function FhirPushForm({ target }: { target: FhirPushTarget | null }) {
  const { t } = useI18n();
  const f = t.fhirPush;
  const [model, dispatch] = useReducer(fhirPushReducer, target, fhirPushModel);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, model.focusRequest);
  const { onSubmit, busy } = useFhirPushSave(model, dispatch);
  const binders = settingBinders({
    form: model.form,
    errors: model.errors,
    disabled: false,
    change: (key, value) => dispatch({ type: "change", patch: { [key]: value } }),
  });

  return (
    <form ref={formRef} className="cs-stack cs-stack--lg" onSubmit={onSubmit} noValidate aria-label={f.title}>
      {model.errors.form ? (
        <Notice tone="danger" role="alert">
          {model.errors.form}
        </Notice>
      ) : null}
      <Switch
        label={f.enabledLabel}
        description={f.enabledDescription}
        {...binders.switchSetting("enabled", "fhirEnabled")}
      />
      <TextField
        label={f.baseUrlLabel}
        hint={f.baseUrlHint}
        {...urlInput}
        {...binders.textSetting("baseUrl", "fhirBaseUrl")}
      />
      <div className={settingsStyles.divider} />
      <AuthFields model={model} dispatch={dispatch} binders={binders} f={f} />
      <div className={settingsStyles.divider} />
      <IdentifierSystems binders={binders} f={f} />
      <SaveRow feedback={model.feedback} busy={busy} saveLabel={f.save} />
    </form>
  );
}

/** The kind of authentication, then only what that kind needs: the client, and the credential. */
function AuthFields({
  model,
  dispatch,
  binders,
  f,
}: {
  model: FhirPushModel;
  dispatch: Dispatch<FhirPushAction>;
  binders: Binders;
  f: Texts;
}) {
  const { auth } = model.form;
  const needs = authNeeds[auth];
  const credential = credentialState(model);
  return (
    <>
      <SelectField
        label={f.authLabel}
        hint={f.authHint}
        name="fhirAuth"
        value={auth}
        error={model.errors.auth}
        onChange={(event) => {
          const chosen = fhirPushAuth.safeParse(event.currentTarget.value);
          if (chosen.success) dispatch({ type: "chooseAuth", auth: chosen.data });
        }}
        options={fhirPushAuth.options.map((kind) => ({ value: kind, label: f.authKinds[kind] }))}
      />
      {needs.client ? (
        <div className={styles.clientFields}>
          <TextField
            label={f.clientIdLabel}
            spellCheck={false}
            mono
            {...binders.textSetting("clientId", "fhirClientId")}
          />
          <TextField
            label={f.tokenUrlLabel}
            hint={f.tokenUrlHint}
            {...urlInput}
            {...binders.textSetting("tokenUrl", "fhirTokenUrl")}
          />
          <TextField
            label={f.scopeLabel}
            hint={f.scopeHint}
            spellCheck={false}
            mono
            {...binders.textSetting("scope", "fhirScope")}
          />
        </div>
      ) : null}
      {needs.credential && credential !== "none" ? (
        <CredentialField
          kind={needs.credential}
          state={credential}
          value={model.form.secret}
          error={model.errors.secret}
          f={f}
          onChange={(secret) => dispatch({ type: "change", patch: { secret } })}
          onReplace={() => dispatch({ type: "replaceCredential" })}
          onKeep={() => dispatch({ type: "keepCredential" })}
        />
      ) : null}
    </>
  );
}

/** The identifier systems the Bundle's subject names, so the record finds its patient in the HIS. */
function IdentifierSystems({ binders, f }: { binders: Binders; f: Texts }) {
  return (
    <fieldset className={`cs-stack ${settingsStyles.fieldset}`}>
      <legend className="cs-label">{f.systemsLegend}</legend>
      <p className="cs-hint">{f.systemsHint}</p>
      <div className={styles.systemFields}>
        <TextField
          label={f.patientIdSystemLabel}
          hint={f.patientIdSystemHint}
          spellCheck={false}
          autoCapitalize="none"
          mono
          {...binders.textSetting("patientIdSystem", "fhirPatientIdSystem")}
        />
        <TextField
          label={f.rnummerSystemLabel}
          hint={f.rnummerSystemHint}
          spellCheck={false}
          autoCapitalize="none"
          mono
          {...binders.textSetting("rnummerSystem", "fhirRnummerSystem")}
        />
      </div>
    </fieldset>
  );
}
