/**
 * The organizations and people that exist when the suite starts. e2e/provision.ts makes them
 * before the service starts; it runs outside the test runner, so nothing here imports Playwright.
 */

export interface SeededAccount {
  email: string;
  password: string;
  name: string;
}

/** A second organization beside the demo one, for the tests of trust between organizations (identity-trust.spec.ts). */
export const NORTH_CLINIC: {
  name: string;
  domain: string;
  owner: SeededAccount;
  admin: SeededAccount;
  member: SeededAccount;
} = {
  name: "Klinik Nord",
  /** The e-mail domain it claims and proves for its single sign-on. */
  domain: "klinik-nord.example",
  owner: { email: "owner@klinik-nord.example", password: "nord-owner-pass-1", name: "Olga Brandt" },
  admin: { email: "admin@klinik-nord.example", password: "nord-admin-pass-1", name: "Arne Vogt" },
  /** A staff member without a second factor, who adds and removes a passkey. */
  member: { email: "sam.keller@klinik-nord.example", password: "nord-member-pass-1", name: "Sam Keller" },
};

/**
 * Staff of the demo organization whose address is at Klinik Nord's domain: Klinik Nord's provider
 * will name her, and her existing account must prove itself before it is connected.
 */
export const DEMO_MEMBER_AT_NORTH: SeededAccount = {
  email: "lena.berg@klinik-nord.example",
  password: "lena-berg-pass-1",
  name: "Dr. Lena Berg",
};
