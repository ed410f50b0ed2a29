import type { StaffProcedure } from "@clinsign/contracts";
import type { IconName } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";

export type NavKey = keyof Omit<Dictionary["nav"], `group${string}`>;

export interface NavItem {
  key: NavKey;
  href: string;
  icon: IconName;
  /** False while the section shows its "coming soon" page. */
  ready: boolean;
  /** The procedure the section's page is built on: the entry shows only to roles that may call it. */
  requires?: StaffProcedure;
}

export interface NavGroup {
  label: keyof Dictionary["nav"] | null;
  items: NavItem[];
}

/** The admin area's sections, in the order of the side navigation. */
export const navigation: NavGroup[] = [
  { label: null, items: [{ key: "overview", href: "/", icon: "overview", ready: true }] },
  {
    label: "groupSignatures",
    items: [
      { key: "documents", href: "/documents", icon: "document", ready: true },
      { key: "signatureRequests", href: "/signature-requests", icon: "signature", ready: true },
      { key: "branding", href: "/branding", icon: "branding", ready: true },
    ],
  },
  {
    label: "groupForms",
    items: [
      { key: "formTemplates", href: "/form-templates", icon: "template", ready: true },
      { key: "formRequests", href: "/form-requests", icon: "send", ready: true },
      { key: "submissions", href: "/submissions", icon: "inbox", ready: true },
    ],
  },
  {
    label: "groupIntegration",
    items: [
      { key: "webhooks", href: "/webhooks", icon: "webhook", ready: true },
      { key: "fhirDeliveries", href: "/fhir-deliveries", icon: "globe", ready: true },
      { key: "tokens", href: "/tokens", icon: "key", ready: true, requires: "tokens.list" },
    ],
  },
  {
    label: "groupOrganization",
    items: [
      { key: "users", href: "/users", icon: "users", ready: true, requires: "users.list" },
      { key: "auditLog", href: "/audit-log", icon: "audit", ready: true },
      { key: "patientData", href: "/patient-data", icon: "shield", ready: true, requires: "patients.erase" },
      { key: "settings", href: "/settings", icon: "settings", ready: true },
    ],
  },
  {
    // The signed-in member's own: sessions, and the factors they sign in with.
    label: "groupAccount",
    items: [
      { key: "account", href: "/account", icon: "user", ready: true },
      { key: "security", href: "/security", icon: "shield", ready: true },
    ],
  },
];

export function isActive(item: NavItem, pathname: string): boolean {
  return item.href === "/" ? pathname === "/" : pathname === item.href || pathname.startsWith(`${item.href}/`);
}
