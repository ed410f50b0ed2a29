"use client";

import type { LegalHoldItem } from "@clinsign/contracts";
import {
  Button,
  Card,
  EmptyState,
  keysetPaging,
  type TableColumn,
  TextField,
  useAnnouncement,
  useStaffList,
} from "@clinsign/ui";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useFocusFirstInvalid } from "../../components/useFocusFirstInvalid";
import { ListCard } from "../../components/lists/ListCard";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import styles from "./settings.module.css";

/**
 * Legal holds (Settings, below Data retention): the active holds, and for owners and admins the
 * form that places one and the button that releases it. While a hold is active nothing of the
 * patient it names is deleted, by the retention run or by an erasure.
 */
export function LegalHolds() {
  const can = useCan();
  if (!can("retention.legalHolds")) return null;
  return (
    <>
      {can("retention.placeLegalHold") ? <PlaceLegalHold /> : null}
      <LegalHoldList />
    </>
  );
}

interface HoldForm {
  patientId: string;
  rnummer: string;
  phone: string;
  reason: string;
}
const emptyForm: HoldForm = { patientId: "", rnummer: "", phone: "", reason: "" };

function PlaceLegalHold() {
  const { t } = useI18n();
  const h = t.legalHolds;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formRef = useRef<HTMLFormElement>(null);
  const [form, setForm] = useState<HoldForm>(emptyForm);
  const [errors, setErrors] = useState<Partial<Record<keyof HoldForm, string>>>({});
  const [announcement, announce] = useAnnouncement();
  const place = useMutation(
    trpc.retention.placeLegalHold.mutationOptions({
      onSuccess: () => {
        setForm(emptyForm);
        announce(h.placed);
        void queryClient.invalidateQueries({ queryKey: trpc.retention.legalHolds.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.retention.preview.queryKey() });
      },
    }),
  );
  useFocusFirstInvalid(formRef, Object.keys(errors).length > 0 ? errors : null);
  useFocusFirstInvalid(formRef, place.error);
  // The server reads the number (national ones in the organization's country) and says when it is none.
  const phoneRefused = place.error !== null && readApiError(place.error).details.field === "phone";
  const field = (key: keyof HoldForm) => ({
    name: `legalHold-${key}`,
    value: form[key],
    error: errors[key] ?? (key === "phone" && phoneRefused ? h.phoneInvalid : undefined),
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setForm((f) => ({ ...f, [key]: value }));
      if (key === "phone" && phoneRefused) place.reset();
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const next: Partial<Record<keyof HoldForm, string>> = {};
    const [patientId, rnummer, phone, reason] = [form.patientId, form.rnummer, form.phone, form.reason].map((v) =>
      v.trim(),
    );
    if (!patientId && !rnummer && !phone) next.patientId = h.selectorRequired;
    if (!reason) next.reason = t.validation.required;
    setErrors(next);
    if (Object.keys(next).length > 0) return;
    place.mutate({
      selector: { ...(patientId && { patientId }), ...(rnummer && { rnummer }), ...(phone && { phone }) },
      reason: reason!,
    });
  }

  return (
    <Card title={h.title} description={h.description}>
      <form ref={formRef} className="cs-stack cs-stack--lg" onSubmit={onSubmit} noValidate aria-label={h.placeTitle}>
        <ErrorNotice
          error={place.error}
          fields={["selector.patientId", "selector.rnummer", "selector.phone", "phone", "reason"]}
        />
        <div className={styles.holdFields}>
          <TextField label={h.patientIdLabel} spellCheck={false} autoComplete="off" {...field("patientId")} />
          <TextField label={h.rnummerLabel} spellCheck={false} autoComplete="off" {...field("rnummer")} />
          <TextField
            label={h.phoneLabel}
            placeholder={h.phonePlaceholder}
            type="tel"
            inputMode="tel"
            autoComplete="off"
            {...field("phone")}
          />
        </div>
        <TextField label={h.reasonLabel} hint={h.reasonHint} maxLength={500} {...field("reason")} />
        <div className={styles.ssoSave}>
          <p
            className={styles.feedback}
            role="status"
            aria-live="polite"
            data-tone={announcement ? "success" : undefined}
          >
            {announcement}
          </p>
          <Button type="submit" variant="primary" busy={place.isPending}>
            {h.place}
          </Button>
        </div>
      </form>
    </Card>
  );
}

function LegalHoldList() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const h = t.legalHolds;
  const trpc = useTRPC();
  const can = useCan();
  const queryClient = useQueryClient();
  const list = useStaffList(
    useInfiniteQuery(trpc.retention.legalHolds.infiniteQueryOptions({ limit: 50 }, keysetPaging)),
  );
  const release = useMutation(
    trpc.retention.releaseLegalHold.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.retention.legalHolds.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.retention.preview.queryKey() });
      },
    }),
  );
  const patientOf = (row: LegalHoldItem) =>
    [
      row.patientId && format(h.patientIdIs, { value: row.patientId }),
      row.rnummer && format(h.rnummerIs, { value: row.rnummer }),
      row.phone && format(h.phoneIs, { value: row.phone }),
    ]
      .filter(Boolean)
      .join(" · ");
  const columns: TableColumn<LegalHoldItem>[] = [
    { key: "patient", header: h.columnPatient, render: patientOf },
    { key: "reason", header: h.columnReason, render: (row) => row.reason },
    {
      key: "placed",
      header: h.columnPlaced,
      render: (row) =>
        row.createdBy
          ? format(h.placedBy, { date: clinic.dateTime(row.createdAt), name: row.createdBy })
          : clinic.dateTime(row.createdAt),
    },
    {
      key: "actions",
      header: h.columnActions,
      end: true,
      render: (row) =>
        can("retention.releaseLegalHold") ? (
          <Button
            size="small"
            variant="danger-outline"
            aria-label={format(h.releaseLabel, { patient: patientOf(row) })}
            busy={release.isPending && release.variables?.id === row.id}
            onClick={() => release.mutate({ id: row.id })}
          >
            {h.release}
          </Button>
        ) : null,
    },
  ];
  return (
    <ListCard
      title={h.listTitle}
      description={clinic.note}
      toolbar={
        release.error ? (
          <div className="cs-card__body">
            <ErrorNotice error={release.error} />
          </div>
        ) : null
      }
      list={list}
      caption={h.listCaption}
      columns={columns}
      rowKey={(row) => row.id}
      empty={<EmptyState icon="shield" level={3} title={h.emptyTitle} description={h.emptyBody} />}
      labels={{ shown: h.shown, loadMore: h.loadMore }}
      skeletonLines={2}
    />
  );
}
