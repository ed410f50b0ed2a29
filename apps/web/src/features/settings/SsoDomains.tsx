"use client";

import type { SsoDomainState, VerifySsoDomainResult } from "@clinsign/contracts";
import { Badge, Button, CopyField, Icon } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./settings.module.css";

/**
 * The claimed domains and whether each is proven by its DNS TXT record: an unproven domain routes
 * no sign-ins and admits no one. Owners may ask for a check now.
 */
export function SsoDomains({ domains, canVerify }: { domains: SsoDomainState[]; canVerify: boolean }) {
  const { t } = useI18n();
  const s = t.sso;
  return (
    <section className="cs-stack" aria-labelledby="sso-domains-title" data-testid="sso-domains">
      <h3 id="sso-domains-title" className="cs-label">
        {s.domainsProofTitle}
      </h3>
      <p className="cs-hint">{s.domainsProofHint}</p>
      {domains.length === 0 ? (
        <p className="cs-hint">{s.domainsProofEmpty}</p>
      ) : (
        <ul className={styles.domains}>
          {domains.map((domain) => (
            <SsoDomain key={domain.domain} domain={domain} canVerify={canVerify} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SsoDomain({ domain, canVerify }: { domain: SsoDomainState; canVerify: boolean }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.sso;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<{ tone: "success" | "danger"; text: string } | null>(null);
  const check = useMutation(
    trpc.organization.verifySsoDomain.mutationOptions({
      onSuccess: async (result) => {
        setOutcome(describeCheck(result));
        if (result.verified) await queryClient.invalidateQueries({ queryKey: trpc.organization.sso.queryKey() });
      },
      onError: (error) => setOutcome({ tone: "danger", text: describeApiError(readApiError(error), t) }),
    }),
  );

  function describeCheck(result: VerifySsoDomainResult) {
    if (result.verified)
      return { tone: "success" as const, text: format(s.domainVerifiedNow, { domain: result.domain }) };
    const problems = { not_found: s.domainNotFound, dns_error: s.domainDnsError, claimed: s.domainClaimed };
    return { tone: "danger" as const, text: problems[result.problem ?? "not_found"] };
  }

  const copyLabels = { copy: t.common.copy, copied: t.common.copied, copyManually: t.common.copyManually };
  return (
    <li className={styles.domain} data-testid="sso-domain">
      <div className={styles.domainHeading}>
        <strong>{domain.domain}</strong>
        {domain.verified ? (
          <Badge tone="success">{s.domainVerified}</Badge>
        ) : (
          <Badge tone="warning">{s.domainUnverified}</Badge>
        )}
      </div>
      {domain.verified ? (
        domain.verifiedAt ? (
          <p className="cs-hint">{format(s.domainVerifiedAt, { date: clinic.dateTime(domain.verifiedAt) })}</p>
        ) : null
      ) : (
        <>
          <p className="cs-hint">{s.domainTxtHint}</p>
          <CopyField
            label={format(s.domainTxtName, { domain: domain.domain })}
            value={domain.txtName}
            labels={copyLabels}
          />
          <CopyField
            label={format(s.domainTxtValue, { domain: domain.domain })}
            value={domain.txtValue}
            labels={copyLabels}
          />
          {canVerify ? (
            <div>
              <Button
                size="small"
                icon={<Icon name="refresh" />}
                busy={check.isPending}
                aria-label={format(s.domainCheckLabel, { domain: domain.domain })}
                onClick={() => (setOutcome(null), check.mutate({ domain: domain.domain }))}
              >
                {s.domainCheck}
              </Button>
            </div>
          ) : null}
        </>
      )}
      <p className={styles.domainOutcome} role="status" aria-live="polite" data-tone={outcome?.tone}>
        {outcome?.text}
      </p>
    </li>
  );
}
