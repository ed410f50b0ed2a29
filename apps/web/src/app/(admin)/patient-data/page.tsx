import type { Metadata } from "next";
import { PatientDataPage } from "../../../features/patient-data/PatientDataPage";
import { getDictionary } from "../../../i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const { t } = await getDictionary();
  return { title: t.patientData.pageTitle };
}

export default function Page() {
  return <PatientDataPage />;
}
