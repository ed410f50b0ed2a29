import { EmptyState } from "@clinsign/ui";
import type { Metadata } from "next";
import { getDictionary } from "../i18n/server";
import styles from "./not-found.module.css";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.notFound.pageTitle };
}

export default async function NotFound() {
  const { t } = await getDictionary();
  return (
    <main className={styles.page}>
      <div className="cs-card">
        <EmptyState
          level={1}
          icon="alert"
          title={t.notFound.title}
          description={t.notFound.body}
          action={
            // A plain link: next/link here would ship with every page, patient pages included.
            <a href="/" className="cs-button cs-button--primary">
              {t.common.backToOverview}
            </a>
          }
        />
      </div>
    </main>
  );
}
