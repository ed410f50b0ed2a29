import { EmptyState } from "@clinsign/ui";
import type { Metadata } from "next";
import Link from "next/link";
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
            <Link href="/" className="cs-button cs-button--primary">
              {t.common.backToOverview}
            </Link>
          }
        />
      </div>
    </main>
  );
}
