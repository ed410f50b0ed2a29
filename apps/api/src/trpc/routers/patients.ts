import type { TRPCRouterRecord } from "@trpc/server";
import { patientErasureInput, patientExportInput, patientSelector } from "@clinsign/contracts";
import { exportPatientData, suggestExportLanguage } from "../../core/patients/access-export";
import { erasePatient } from "../../core/patients/erasure";
import { orgProcedure } from "../trpc";

export const patientsRouter = {
  /** Staff (owners, admins: the permission table) and API tokens (REST `POST /patients/erase`). */
  erase: orgProcedure.input(patientErasureInput).mutation(({ ctx, input }) => erasePatient(ctx.org, input)),
  /**
   * The patient access export (a ZIP). Its bytes leave through REST `POST /patients/export` and the
   * console's `POST /staff/patients/export`, which start `open()`; over /trpc the answer is the file
   * name only and nothing is exported.
   */
  export: orgProcedure.input(patientExportInput).mutation(({ ctx, input }) => exportPatientData(ctx.org, input)),
  /** The language the console's export form preselects: the patient's own where known, else the organization's. */
  exportLanguage: orgProcedure
    .input(patientSelector)
    .query(({ ctx, input }) => suggestExportLanguage(ctx.org, { selector: input })),
} satisfies TRPCRouterRecord;
