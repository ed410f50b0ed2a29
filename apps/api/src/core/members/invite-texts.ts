/** The invitation e-mail, in the organization's language. The link is the only secret in it. */
export function inviteEmail(
  locale: "de" | "en",
  values: { organization: string; link: string; days: number },
): { subject: string; body: string } {
  return locale === "en"
    ? {
        subject: `Invitation to ${values.organization} on ClinSign`,
        body: `You have been invited to join ${values.organization} on ClinSign.\n\nOpen this link to choose your name and password (valid for ${values.days} days, once):\n${values.link}\n\nIf you did not expect this invitation, ignore this e-mail.`,
      }
    : {
        subject: `Einladung zu ${values.organization} bei ClinSign`,
        body: `Sie wurden eingeladen, ${values.organization} bei ClinSign beizutreten.\n\nÖffnen Sie diesen Link, um Ihren Namen und Ihr Passwort festzulegen (${values.days} Tage gültig, einmalig):\n${values.link}\n\nWenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail.`,
      };
}
