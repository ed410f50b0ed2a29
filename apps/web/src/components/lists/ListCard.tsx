"use client";

import { StaffListBody, StaffListCard, type StaffListBodyProps, type StaffListCardProps } from "@clinsign/ui";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { LoadFailed } from "../LoadFailed";

/** A list's own texts: `shown` has a {count} placeholder. */
interface ListTexts {
  labels: { shown: string; loadMore: string };
}

/** The shared texts of every staff list (loading, the failure with its retry) around the list's own. */
function useListTexts<Row>(list: StaffListBodyProps<Row>["list"], { shown, loadMore }: ListTexts["labels"]) {
  const { t } = useI18n();
  return {
    labels: { loading: t.common.loading, loadMore, shown: (count: number) => format(shown, { count: String(count) }) },
    failed: <LoadFailed query={list.query} className="cs-card__body cs-stack" />,
  };
}

/**
 * A staff list page's card (see StaffListCard in @clinsign/ui) in the reader's language: title,
 * toolbar, loading, failure with retry, empty, the table with "Load more".
 */
export function ListCard<Row>({ labels, ...props }: Omit<StaffListCardProps<Row>, "labels" | "failed"> & ListTexts) {
  return <StaffListCard {...props} {...useListTexts(props.list, labels)} />;
}

/** The same list without its card, for a card that holds more than the list. */
export function ListBody<Row>({ labels, ...props }: Omit<StaffListBodyProps<Row>, "labels" | "failed"> & ListTexts) {
  return <StaffListBody {...props} {...useListTexts(props.list, labels)} />;
}
