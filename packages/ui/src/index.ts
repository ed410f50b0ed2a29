export { Badge, type BadgeTone } from "./Badge";
export { Button, type ButtonProps, type ButtonVariant } from "./Button";
export { Card, type CardProps } from "./Card";
export { CopyField, type CopyFieldLabels, type CopyFieldProps } from "./CopyField";
export { cx } from "./cx";
export { Dialog, type DialogProps } from "./Dialog";
export { ConfirmDialog, type ConfirmDialogProps } from "./ConfirmDialog";
export { EmptyState, type EmptyStateProps } from "./EmptyState";
export { Fact, Facts, type FactProps, type FactsProps } from "./Facts";
export {
  Field,
  type FieldControlAttributes,
  type FieldMarks,
  type FieldProps,
  type LabelledControlProps,
} from "./Field";
export { Icon, type IconName, type IconProps } from "./Icon";
export {
  StaffListBody,
  StaffListCard,
  type StaffListBodyProps,
  type StaffListCardProps,
  type StaffListLabels,
} from "./lists/StaffListCard";
export {
  keysetPaging,
  useStaffList,
  type KeysetPage,
  type KeysetQuery,
  type StaffList,
  type StaffListState,
} from "./lists/useStaffList";
export { useBrowserIdle, useNearViewport } from "./near-viewport";
export { LiveRegion, useAnnouncement, type LiveRegionProps } from "./LiveRegion";
export { Notice, type NoticeProps, type NoticeTone } from "./Notice";
export {
  fieldBox,
  PdfPages,
  type PdfFieldRect,
  type PdfShownField,
  type PdfPageGeometry,
  type PdfPagesLabels,
  type PdfPagesProps,
} from "./PdfPages";
export { PagesPlaceholder, type PageSize, type PagesPlaceholderProps } from "./PagesPlaceholder";
export { RadioCards, type RadioCardOption, type RadioCardsProps } from "./RadioCards";
export { SignaturePad, type SignaturePadHandle, type SignaturePadLabels, type SignaturePadProps } from "./SignaturePad";
export { SelectField, type SelectFieldProps, type SelectOption } from "./SelectField";
export { Segmented, type SegmentedOption, type SegmentedProps } from "./Segmented";
export { Skeleton } from "./Skeleton";
export { Switch, type SwitchProps } from "./Switch";
export { Table, type TableColumn, type TableProps } from "./Table";
export { TextField, type TextFieldProps } from "./TextField";
