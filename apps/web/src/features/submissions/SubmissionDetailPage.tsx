"use client";

import { isPatientLanguage, languageEndonyms, type SubmissionAnswer, type SubmissionDetail } from "@clinsign/contracts";
import { Badge, type BadgeTone, Card, Fact, Facts } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { retryDetail } from "../../components/DetailStates";
import { DetailColumns, DetailPage } from "../../components/detail/DetailPage";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { useTRPC } from "../../trpc/client";
import { sourceLabel } from "./source";
import styles from "./submissions.module.css";

const tones: Record<string, BadgeTone> = {
  delivered: "success",
  sent: "success",
  pending: "neutral",
  queued: "neutral",
  failed: "danger",
};

function statusText(status: string, s: Dictionary["submissionsPage"]): string {
  const labels: Record<string, string> = {
    delivered: s.statusDelivered,
    sent: s.statusSent,
    pending: s.statusPending,
    queued: s.statusQueued,
    failed: s.statusFailed,
  };
  return labels[status] ?? status;
}

/** Beside an rnummer or phone the patient's browser gave: nobody verified it (issue 32). */
function PatientReported({ s }: { s: Dictionary["submissionsPage"] }) {
  return (
    <>
      {" "}
      <Badge tone="warning">{s.patientReported}</Badge>
    </>
  );
}

function Answer({
  answer,
  s,
}: {
  answer: Omit<SubmissionAnswer, "value"> & { value?: unknown };
  s: Dictionary["submissionsPage"];
}) {
  if (answer.type === "signature" && typeof answer.value === "string" && answer.value.startsWith("data:image/")) {
    return <img className={styles.signature} src={answer.value} alt={s.signatureAlt} />;
  }
  if (answer.files) {
    if (answer.files.length === 0) return <span className="cs-hint">{s.noAnswer}</span>;
    return (
      <ul className={styles.files}>
        {answer.files.map((file) => (
          <li key={file.url}>
            <a href={file.url} download={file.name} rel="noopener noreferrer">
              {file.name}
            </a>{" "}
            <span className="cs-hint">({Math.max(1, Math.round(file.size / 1024))} KB)</span>
          </li>
        ))}
      </ul>
    );
  }
  return answer.text ? (
    <span className={styles.value}>{answer.text}</span>
  ) : (
    <span className="cs-hint">{s.noAnswer}</span>
  );
}

function Delivery({
  detail,
  s,
  locale,
}: {
  detail: Pick<SubmissionDetail, "webhooks" | "emails" | "timeZone">;
  s: Dictionary["submissionsPage"];
  locale: string;
}) {
  return (
    <Card title={s.deliveryTitle}>
      <div className="cs-stack">
        <h3 className={styles.subheading}>{s.webhooksTitle}</h3>
        {detail.webhooks.length === 0 ? (
          <p className="cs-hint">{s.noWebhooks}</p>
        ) : (
          <ul className={styles.outcomes}>
            {detail.webhooks.map((hook) => (
              <li key={hook.id}>
                <Badge tone={tones[hook.status] ?? "neutral"}>{statusText(hook.status, s)}</Badge>{" "}
                <span className={styles.url}>{hook.url}</span>
                <div className="cs-hint">
                  {format(s.attempts, { count: String(hook.attempts) })}
                  {hook.lastStatusCode !== null
                    ? ` · ${format(s.lastStatus, { code: String(hook.lastStatusCode) })}`
                    : ""}
                  {hook.lastError ? ` · ${hook.lastError}` : ""} ·{" "}
                  {formatDateTime(hook.updatedAt, locale, detail.timeZone)}
                </div>
              </li>
            ))}
          </ul>
        )}
        <h3 className={styles.subheading}>{s.emailsTitle}</h3>
        {detail.emails.length === 0 ? (
          <p className="cs-hint">{s.noEmails}</p>
        ) : (
          <ul className={styles.outcomes}>
            {detail.emails.map((mail) => (
              <li key={mail.id}>
                <Badge tone={tones[mail.status] ?? "neutral"}>{statusText(mail.status, s)}</Badge>{" "}
                {mail.recipients.join(", ")}
                <div className="cs-hint">
                  {mail.subject ?? ""}
                  {mail.sentAt ? ` · ${formatDateTime(mail.sentAt, locale, detail.timeZone)}` : ""}
                  {mail.lastError ? ` · ${mail.lastError}` : ""}
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Card>
  );
}

/** The patient answered in another language than the template's own: staff are told which. */
const answeredInOther = (d: { language: string | null; templateLanguage: string | null }) =>
  d.language !== null && d.templateLanguage !== null && d.language !== d.templateLanguage;

const languageName = (code: string) => (isPatientLanguage(code) ? languageEndonyms[code] : code);

/**
 * One submission: each answer under its label, attachments, signature, facts, webhook and e-mail
 * outcome, PDF. Times are on the clinic's clock (the organization's time zone), answers in its
 * language, as the CSV and the PDF write them.
 */
export function SubmissionDetailPage({ id }: { id: string }) {
  const { t, locale } = useI18n();
  const s = t.submissionsPage;
  const trpc = useTRPC();
  const detail = useQuery(trpc.submissions.get.queryOptions({ id }, { retry: retryDetail }));
  return (
    <DetailPage
      query={detail}
      back={{ href: "/submissions", label: s.back }}
      loadingTitle={s.pageTitle}
      icon="inbox"
      notFound={{ title: s.notFoundTitle, body: s.notFoundBody }}
      header={(d) => ({
        title: format(s.detailTitle, { date: formatDateTime(d.createdAt, locale, d.timeZone) }),
        description: d.templateTitle,
        actions: (
          <a className="cs-button cs-button--primary" href={`/staff/submissions/${d.id}/pdf`} download>
            {s.downloadPdf}
          </a>
        ),
      })}
    >
      {(d) => (
        <DetailColumns>
          <Card title={s.answersTitle} description={format(s.answersDescription, { version: String(d.schemaVersion) })}>
            {answeredInOther(d) ? (
              <p className={styles.answeredIn} data-answered-language={d.language}>
                {format(s.answeredIn, { language: languageName(d.language!) })}
              </p>
            ) : null}
            <dl className={styles.answers}>
              {d.answers.map((answer) => (
                <div key={answer.key} className={styles.answer}>
                  <dt>
                    {answer.label}
                    {answer.answeredLabel ? (
                      <span className={styles.answeredLabel} lang={d.language ?? undefined} dir="auto">
                        {answer.answeredLabel}
                      </span>
                    ) : null}
                  </dt>
                  <dd>
                    <Answer answer={answer} s={s} />
                  </dd>
                </div>
              ))}
            </dl>
            {d.answers.some((a) => a.files?.length) ? <p className="cs-hint">{s.attachmentsHint}</p> : null}
          </Card>
          <div className="cs-stack cs-stack--lg">
            <Card title={s.factsTitle}>
              <Facts>
                <Fact term={s.submittedAt}>{formatDateTime(d.createdAt, locale, d.timeZone, true)}</Fact>
                <Fact term={s.columnRnummer}>
                  {d.rnummer ?? "–"}
                  {d.rnummer && d.patientReported.includes("rnummer") ? <PatientReported s={s} /> : null}
                </Fact>
                {d.phone ? (
                  <Fact term={s.phone}>
                    {d.phone}
                    {d.patientReported.includes("phone") ? <PatientReported s={s} /> : null}
                  </Fact>
                ) : null}
                <Fact term={s.columnSource}>{sourceLabel(d.actorType, s)}</Fact>
                <Fact term={s.formVersion}>
                  <code className="cs-mono">{d.templateIdentifier}</code> · v{d.schemaVersion}
                </Fact>
                <Fact term={s.submissionId}>
                  <code className={`cs-mono ${styles.hash}`}>{d.id}</code>
                </Fact>
                <Fact term={s.sha256}>
                  <code className={`cs-mono ${styles.hash}`}>{d.sha256}</code>
                </Fact>
              </Facts>
            </Card>
            <Delivery detail={d} s={s} locale={locale} />
          </div>
        </DetailColumns>
      )}
    </DetailPage>
  );
}
